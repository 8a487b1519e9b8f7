#include "whatif/finding_predictions.h"

#include <algorithm>
#include <map>
#include <utility>

#include "whatif/finding_fixes.h"
#include "whatif/statement_span.h"
#include "whatif/trace_program.h"

namespace syncscope::whatif {
namespace {

using Steps = std::vector<std::pair<uint64_t, uint64_t>>;

// Each phase's steady steps on the trace clock, by phase index.
std::map<int, Steps> steps_by_phase(const Analysis& analysis) {
  std::map<int, Steps> out;
  for (const StepFigures& s : analysis.step_figures) {
    out[s.span.phase_index].emplace_back(s.span.start_ns, s.span.end_ns);
  }
  return out;
}

SiteSpec site_of(const Finding& f, uint32_t site) { return SiteSpec{site, f.tid, f.stack_id}; }

// The operations a known site's setting drops besides the replayed read,
// for the fix the known site names (a finding replayed by another fix
// keeps them).
uint32_t dropped_operations(Fix fix, const KnownSite* known) {
  if (known == nullptr || fix != Fix::kDropReadBack) return 0;
  return fix_from_name(known->replay) == fix ? known->drops_operations : 0;
}

// Each statement-removing site's statement (statement_span.h; for
// fixed-shape from its read-back on), found once for its own finding and
// for "all fixed".
using Statements = std::map<uint32_t, StatementSpan>;

// Whether line events bounded (or, past the watch's budget, stood for)
// every execution of the statement: then nothing of it goes unseen.
bool whole_statement(const StatementSpan& span) {
  return span.executions > 0 && span.executions_from_lines == span.executions;
}

// The site of each op the fixes change: each site's own calls, and for
// every-n-steps all of its statement's (which may hold other sites' calls:
// print(loss) read back eight times a step on an H200, and printing less
// drops them all), with the statement's own host work; for fixed-shape its
// statement's from the read-back on.
OpMarks marks_for(const TraceProgram& program, const Statements& statements,
                  const std::vector<std::pair<SiteSpec, Fix>>& fixes) {
  std::vector<SiteSpec> sites;
  for (const auto& [spec, fix] : fixes) sites.push_back(spec);
  OpMarks marks{sites_of_ops(program, sites), {}};
  std::vector<uint64_t> statement_work(program.program.ops.size(), 0);
  for (const auto& [spec, fix] : fixes) {
    auto statement = statements.find(spec.site);
    if (statement_part(fix) == StatementPart::kNone || statement == statements.end()) continue;
    const StatementSpan& span = statement->second;
    for (size_t i = 0; i < span.ops.size() && i < marks.site.size(); ++i) {
      if (span.ops[i]) marks.site[i] = spec.site;
      // Statements of different findings may share the same work (all
      // fixed): it goes once.
      statement_work[i] = std::max(statement_work[i], span.host_work_ns[i]);
    }
  }
  // A read-back's copy marked with its sync (sites_of_ops) is the
  // statement's too, and so is the work between them.
  std::vector<SiteFix> site_fixes;
  for (const auto& [spec, fix] : fixes) site_fixes.push_back({spec.site, fix});
  const std::vector<uint64_t> between = work_between_statement_calls(program.program, site_fixes, marks.site);
  for (size_t i = 0; i < statement_work.size(); ++i) statement_work[i] = std::max(statement_work[i], between[i]);
  marks.statement_host_ns = std::move(statement_work);
  return marks;
}

// The statement of a statement-removing fix's site in `program` (for
// fixed-shape from its read-back on), found once per program: nullptr for
// a fix that keeps its statement.
const StatementSpan* add_statement(Statements& statements, const TraceProgram& program, const ProcessTrace& trace,
                                   const SiteSpec& spec, Fix fix, const CodeOwnershipOptions& code) {
  const StatementPart part = statement_part(fix);
  if (part == StatementPart::kNone) return nullptr;
  auto found = statements.find(spec.site);
  if (found != statements.end()) return &found->second;
  const SpanStart start = part == StatementPart::kWhole ? SpanStart::kLineStart : SpanStart::kFirstCall;
  return &statements.emplace(spec.site, statement_span(program, trace, spec.tid, spec.stack_id, code, start))
              .first->second;
}

}  // namespace

Predictions predict_findings(const ProcessTrace& trace, const Analysis& analysis, const CodeOwnershipOptions& code,
                             const std::vector<Operation>& operations,
                             const std::vector<const KnownSite*>& known_sites) {
  Predictions out;
  out.findings.resize(analysis.findings.size());
  const std::map<int, Steps> phases = steps_by_phase(analysis);
  // Every predicted finding's site and fix, whatever its phase.
  std::vector<std::pair<SiteSpec, Fix>> fixable;
  auto known_of = [&](size_t finding) { return finding < known_sites.size() ? known_sites[finding] : nullptr; };
  // Each phase's program and the baseline its fixes are compared with, made
  // once for all of its findings, and the statements of read-backs in it.
  std::map<int, std::pair<TraceProgram, Baseline>> built;
  std::map<int, Statements> statements;
  auto program_of = [&](int phase, const Steps& steps) -> const std::pair<TraceProgram, Baseline>& {
    auto found = built.find(phase);
    if (found != built.end()) return found->second;
    TraceProgram program = program_from_trace(trace, steps, {});
    Baseline base = baseline(program.program, 0, program.steps, program.gpu_measured);
    return built.emplace(phase, std::make_pair(std::move(program), std::move(base))).first->second;
  };
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    const Finding& f = analysis.findings[i];
    if (f.phase != Phase::kSteady || f.stack_id == 0) continue;
    auto steps = phases.find(f.phase_index);
    const Operation operation = i < operations.size() ? operations[i] : Operation::kUnknown;
    std::optional<Fix> fix = fix_for(f, operation, known_of(i));
    if (steps == phases.end() || steps->second.size() < 2 || !fix) continue;
    const auto& [program, base] = program_of(f.phase_index, steps->second);
    const uint32_t site = static_cast<uint32_t>(i + 1);
    // A whole statement that line events bounded is seen whole: no floor.
    // Fixed-shape's stays one (what_if.h).
    const StatementPart part = statement_part(*fix);
    const StatementSpan* span = add_statement(statements[f.phase_index], program, trace, site_of(f, site), *fix, code);
    const bool seen_whole = part == StatementPart::kWhole && span != nullptr && whole_statement(*span);
    const OpMarks marks = marks_for(program, statements[f.phase_index], {{site_of(f, site), *fix}});
    const bool floor = (saving_is_a_floor(*fix) && !seen_whole) || moves_loading_off_the_thread(*fix, operation);
    const SiteFix site_fix{site, *fix, dropped_operations(*fix, known_of(i))};
    out.findings[i] = FindingPrediction{*fix, predict(base, {site_fix}, &marks), floor, saving_is_a_ceiling(*fix),
                                        site_fix.drops_operations};
    fixable.emplace_back(site_of(f, site), *fix);
  }
  // "All fixed" fixes every predicted finding in each phase's steps, its
  // own and those of a phase that runs inside them: an evaluation inside
  // the training loop lengthens the train steps it interrupts, and fixing
  // its read-backs shortens them.
  if (fixable.empty()) return out;
  for (const auto& [phase, steps] : phases) {
    if (steps.size() < 2) continue;
    const auto& [program, base] = program_of(phase, steps);
    // The phase's own findings last: where another phase's finding has the
    // same call site (a helper that reads back in training and in eval),
    // the phase's own marks its calls.
    std::vector<std::pair<SiteSpec, Fix>> in_order = fixable;
    std::stable_partition(in_order.begin(), in_order.end(),
                          [&](const auto& sf) { return analysis.findings[sf.first.site - 1].phase_index != phase; });
    for (const auto& [spec, fix] : in_order) add_statement(statements[phase], program, trace, spec, fix, code);
    const OpMarks marks = marks_for(program, statements[phase], in_order);
    std::vector<bool> marked(analysis.findings.size() + 1, false);  // by site: finding index + 1
    for (uint32_t site : marks.site) {
      if (site < marked.size()) marked[site] = true;
    }
    std::vector<SiteFix> fixes;
    std::vector<size_t> changed;
    for (const auto& [spec, fix] : in_order) {
      if (!marked[spec.site]) continue;
      fixes.push_back({spec.site, fix, dropped_operations(fix, known_of(spec.site - 1))});
      changed.push_back(spec.site - 1);
    }
    const bool own = std::any_of(fixable.begin(), fixable.end(), [&](const auto& sf) {
      return analysis.findings[sf.first.site - 1].phase_index == phase;
    });
    if (!own && changed.empty()) continue;  // no finding's calls run in its steps: nothing to say
    out.phases.push_back(PhasePrediction{phase, predict(base, fixes, &marks), std::move(changed)});
  }
  return out;
}

}  // namespace syncscope::whatif
