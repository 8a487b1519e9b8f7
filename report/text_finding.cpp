#include "report/text_finding.h"

#include <cstdio>

#include "report/finding_text.h"
#include "report/frame_folding.h"
#include "report/gpu_timeline_text.h"
#include "report/prediction_text.h"
#include "report/site_text.h"
#include "trace/source_paths.h"
#include "report/text_layout.h"
#include "report/units.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

constexpr const char* kIndent = "      ";  // under "   #1 "
// A site in at most one step in this many is "rare": counted in steps and in
// all, not per step.
constexpr uint64_t kRareStepsDivisor = 10;

void render_header(const ProcessReport& process, const ReportedFinding& r, int rank, const TextReportOptions& options,
                   std::ostream& out) {
  const char* red = options.color ? "\033[1;31m" : "";
  const char* bold = options.color ? "\033[1m" : "";
  const char* reset = options.color ? "\033[0m" : "";
  const std::string number = "   #" + std::to_string(rank) + " ";
  const std::string category = category_name(r.finding.category);
  const std::string location = sync_location(r.site, process.trace->info(info_key::kCwd));
  // The phase, when the program has more than one (train, eval).
  const PhaseInfo* phase = finding_phase(process, r.finding);
  std::string tag = phase && process.analysis.phases.size() > 1 ? "  [" + phase->name + "]" : "";
  if (r.known) tag += "  [in baseline]";
  if (r.site.sync_in_library()) tag = "  [" + r.site.sync.library + "]" + tag;
  std::string text = sync_text(r.site);
  size_t used = text_columns(number + category + "  " + location + "  " + tag);
  if (!text.empty()) text = "  " + truncate_columns(text, used < kScreenColumns ? kScreenColumns - used : 8);
  out << number << red << category << reset << "  " << bold << location << reset << text << tag << "\n";
}

// The user's line that reached a library's sync: "reached from train.py:20
// trainer.train()".
void render_reached_from(const ProcessReport& process, const ReportedFinding& r, std::ostream& out) {
  const std::string from = reached_from(r.site, process.trace->info(info_key::kCwd));
  if (!from.empty()) out << kIndent << truncate_columns("reached from " + from, kScreenColumns - 6) << "\n";
}

void render_figures(const ProcessReport& process, const ReportedFinding& r, std::ostream& out) {
  const Finding& f = r.finding;
  const PhaseInfo* phase = finding_phase(process, f);
  std::string first = std::to_string(f.count) + (f.count == 1 ? " call" : " calls");
  std::string second = f.api_sequence;
  if (r.operation != Operation::kUnknown) second = std::string(operation_label(r.operation)) + ": " + second;
  // Work in a few steps only (a checkpoint, one eval batch at a boundary):
  // an average per step would read as if every step paid a little. Say in
  // how many steps it happened and what it cost in all; JSON keeps per_step.
  const bool some_steps = phase && f.steps_with > 0 && f.steps_with < phase->steps && f.every_n_steps <= 1;
  const bool rare = some_steps && f.steps_with * kRareStepsDivisor <= phase->steps;
  if (f.every_n_steps > 1 && f.steps_with > 0 && phase != nullptr) {
    // A burst every N steps: what one burst is, and how often.
    first += ", " + burst_text(f) + ", " + format_duration(f.host_blocked_ns / f.steps_with) +
             " host blocked each time (" + step_share_text(f.step_share) + " of step time)";
    second += "; " + format_duration(f.host_blocked_ns) + " host blocked in all";
  } else if (rare) {
    first += " in " + std::to_string(f.steps_with) + " of " + std::to_string(phase->steps) + " steps, " +
             format_duration(f.host_blocked_ns) + " host blocked in all";
  } else if (f.per_step > 0) {
    first += ", " + per_step_text(f) + ", " + format_duration(static_cast<uint64_t>(f.blocked_ns_per_step)) +
             " host blocked per step (" + step_share_text(f.step_share) + " of step time)";
    second += "; " + format_duration(f.host_blocked_ns) + " host blocked in all";
    // A site that is not in every step says in how many it was (a periodic
    // one already says every how many).
    if (some_steps) second += ", in " + std::to_string(f.steps_with) + " of " + std::to_string(phase->steps) + " steps";
  } else {
    first += ", " + format_duration(f.host_blocked_ns) + " host blocked";
  }
  if (f.bytes > 0) second += ", " + format_bytes(f.bytes);
  out << kIndent << first << "\n" << kIndent << second << "\n";
  // From the GPU timeline: the idle time its calls left the GPU, and for
  // copies how much ran alongside kernels.
  const std::string gpu = gpu_cost_text(f);
  if (!gpu.empty()) out << kIndent << gpu << "\n";
  // What its fix would give back, by replaying the steps without it: a
  // share of the step the prediction was made against, as in every format.
  const std::string saving = predicted_saving_text(f, f.prediction_step_ns, measure_advice(*process.trace));
  if (!saving.empty()) out << kIndent << saving << "\n";
}

// The thread, when its stack has no Python to say where it was: a named
// thread (autograd's pt_autograd_0), and the Python line that waited for it.
void render_thread(const ProcessReport& process, const ReportedFinding& r, const TextReportOptions& options,
                   std::ostream& out) {
  const ProcessTrace& trace = *process.trace;
  const Finding& f = r.finding;
  const SiteFrames& site = r.site;
  if (!site.python.empty()) return;
  auto named = trace.thread_names.find(f.tid);
  std::string name = named != trace.thread_names.end() ? named->second : "";
  const bool waited = f.waiter_stack_id != 0 || f.waiter_tid != 0;
  // The main thread (tid == pid) carries the program's name: nothing to add.
  const bool main_thread = f.tid == trace.header.pid;
  if ((name.empty() || main_thread) && !waited) return;
  // "no Python" only says something in a process that has Python frames at all.
  const bool python_process = !trace.python_code.empty();
  std::string line = "on thread " + std::to_string(f.tid);
  if (!name.empty())
    line += " (" + name + ")" + (python_process ? ", no Python" : "");
  else if (python_process)
    line += " (no Python)";
  if (site.user_from_waiter) {
    line += "; waited for at " + user_location(site, trace.info(info_key::kCwd)) + " " + user_text(site);
  } else if (waited && f.waiter_tid != 0) {
    line += "; waited for by thread " + std::to_string(f.waiter_tid);
  }
  const char* dim = options.color ? "\033[2m" : "";
  const char* reset = options.color ? "\033[0m" : "";
  out << kIndent << dim << truncate_columns(line, kScreenColumns - text_columns(kIndent)) << reset << "\n";
}

// Python frames from the innermost one of the user's (what is inside it is
// PyTorch's), a few of them; every one with --full-frames.
void render_python(const ProcessReport& process, const SiteFrames& site, const TextReportOptions& options,
                   std::ostream& out) {
  const std::vector<PythonSiteFrame>& frames = site.python.empty() ? site.waiter_python : site.python;
  size_t first = 0;
  if (!options.full_frames && site.has_sync && site.sync_python_index >= 0) {
    first = static_cast<size_t>(site.sync_python_index);  // what is inside it is PyTorch's
  } else if (!options.full_frames) {
    while (first < frames.size() && is_library_python_file(frames[first].file)) ++first;
    if (first == frames.size()) first = 0;
  }
  const std::string cwd = process.trace->info(info_key::kCwd);
  for (size_t i = first, shown = 0; i < frames.size(); ++i, ++shown) {
    if (!options.full_frames && shown == static_cast<size_t>(options.python_frames)) break;
    const PythonSiteFrame& p = frames[i];
    out << kIndent << "py " << display_source_path(p.file, cwd) << ":" << p.line << " " << p.function << "\n";
  }
}

void render_native(const SiteFrames& site, const TextReportOptions& options, std::ostream& out) {
  FoldOptions fold{options.full_frames, options.finding_frames};
  const size_t width = kScreenColumns - text_columns(kIndent) - 3;
  for (const FoldedLine& line : fold_frames(site.native, fold)) {
    bool user = !site.user.python && line.frame >= 0 && line.frame == site.user_native_index;
    // Folded frames stay on the screen; --full-frames shows them whole.
    out << kIndent << (user ? " > " : "   ") << (options.full_frames ? line.text : truncate_columns(line.text, width))
        << "\n";
  }
}

void render_hint(const ReportedFinding& r, const TextReportOptions& options, std::ostream& out) {
  std::string hint = r.finding.hint;
  if (hint.empty()) return;
  if (r.known_site != nullptr) {
    std::string checked;
    for (const auto& [package, version] : r.known_site->checked) {
      checked += (checked.empty() ? "" : ", ") + package + " " + version;
    }
    hint = "(known " + r.known_site->library + " site, checked with " + checked + ") " + hint;
  }
  const char* bold = options.color ? "\033[1m" : "";
  const char* reset = options.color ? "\033[0m" : "";
  const std::string label = "hint: ";
  const std::string indent = std::string(kIndent) + std::string(label.size(), ' ');
  bool first = true;
  for (const std::string& line : wrap_words(hint, kScreenColumns - indent.size())) {
    if (first)
      out << kIndent << bold << "hint:" << reset << " " << line << "\n";
    else
      out << indent << line << "\n";
    first = false;
  }
}

}  // namespace

void render_finding_block(const ProcessReport& process, const ReportedFinding& r, int rank,
                          const TextReportOptions& options, std::ostream& out) {
  render_header(process, r, rank, options, out);
  render_reached_from(process, r, out);
  render_figures(process, r, out);
  render_thread(process, r, options, out);
  render_python(process, r.site, options, out);
  render_native(r.site, options, out);
  render_hint(r, options, out);
}

}  // namespace syncscope
