#include "analysis/predictions.h"

#include <algorithm>
#include <memory>

#include "detectors/finding_rank.h"
#include "sites/known_sites.h"
#include "sites/site_frames.h"
#include "sites/sync_operation.h"
#include "whatif/finding_predictions.h"

namespace syncscope {
namespace {

// Each steady finding's operation (.item(), if t:, x[mask], print(t), a
// list as an index) and known library site, from its symbolised site as
// the report reads it: the operation picks the fix the prediction assumes,
// unless the known site's setting makes another (whatif/finding_fixes.h).
// Default-stream and allocator findings stay kUnknown without a known site
// (their cause alone picks it), and nothing is symbolised where no finding
// needs it.
struct FindingSites {
  std::vector<Operation> operations;
  std::vector<const KnownSite*> known;
};

FindingSites finding_sites(const ProcessTrace& trace, const Analysis& analysis, const CodeOwnershipOptions& code) {
  FindingSites out{std::vector<Operation>(analysis.findings.size(), Operation::kUnknown),
                   std::vector<const KnownSite*>(analysis.findings.size(), nullptr)};
  std::unique_ptr<Symbolizer> symbolizer;
  for (size_t i = 0; i < analysis.findings.size(); ++i) {
    const Finding& f = analysis.findings[i];
    if (f.phase != Phase::kSteady || f.stack_id == 0) continue;
    if (f.category != Category::kHiddenSync && f.category != Category::kPageableCopy) continue;
    if (!symbolizer) symbolizer = std::make_unique<Symbolizer>(trace);
    const SiteFrames site = finding_site_frames(trace, f, *symbolizer, code);
    out.operations[i] = classify_operation(f, site);
    out.known[i] = match_known_site(known_sites(), site, out.operations[i], f.category);
  }
  return out;
}

}  // namespace

void add_predictions(const ProcessTrace& trace, Analysis* analysis, const CodeOwnershipOptions& code) {
  const FindingSites sites = finding_sites(trace, *analysis, code);
  const whatif::Predictions predictions =
      whatif::predict_findings(trace, *analysis, code, sites.operations, sites.known);
  for (size_t i = 0; i < analysis->findings.size(); ++i) {
    if (!predictions.findings[i]) continue;
    const whatif::Prediction& p = predictions.findings[i]->prediction;
    if (!p.fits()) continue;  // the model does not fit the phase: its all-fixed line says so
    Finding& f = analysis->findings[i];
    f.predicted = true;
    f.prediction_measured = p.basis == whatif::Basis::kMeasured;
    f.predicted_fix = whatif::fix_name(predictions.findings[i]->fix);
    f.predicted_dropped_operations = predictions.findings[i]->drops_operations;
    f.prediction_floor = predictions.findings[i]->floor;
    f.prediction_ceiling = predictions.findings[i]->ceiling;
    f.saving_ns_per_step_low = p.saving_low_ns;
    f.saving_ns_per_step_high = p.saving_high_ns;
    f.step_ns_without_low = p.step_without_low_ns;
    f.step_ns_without_high = p.step_without_high_ns;
    f.replayed_step_ns = p.replayed_step_ns;
    // The step its saving is a share of: the recorded step as the model
    // reads it, which with a full GPU timeline ends when the step's GPU work
    // is done (whatif::recorded_step_ends), as "all fixed"'s does; else the
    // phase's mean step.
    if (p.recorded_step_ns > 0) {
      f.prediction_step_ns = p.recorded_step_ns;
    } else if (f.phase_index >= 0 && static_cast<size_t>(f.phase_index) < analysis->phases.size()) {
      f.prediction_step_ns = analysis->phases[static_cast<size_t>(f.phase_index)].step_ns;
    }
  }
  // "All fixed" is bounded by the findings its fixes changed, before the
  // findings are ranked again (the prediction names them by index).
  for (const whatif::PhasePrediction& phase : predictions.phases) {
    const whatif::Prediction& p = phase.all_fixed;
    SavingBounds bounds;
    for (size_t i : phase.findings) {
      const Finding& f = analysis->findings[i];
      if (f.predicted) bounds.add(f.prediction_floor, f.prediction_ceiling);
    }
    analysis->all_fixed.push_back(AllFixedPrediction{phase.phase_index, p.basis == whatif::Basis::kMeasured,
                                                     p.recorded_step_ns, p.replayed_step_ns, p.step_without_low_ns,
                                                     p.step_without_high_ns, p.fits(), bounds.floor(), bounds.ceiling(),
                                                     p.saving_low_ns, p.saving_high_ns});
  }
  // Ranked again, now by what fixing each saves (detectors/finding_rank.h).
  std::stable_sort(analysis->findings.begin(), analysis->findings.end(), ranks_before);
}

}  // namespace syncscope
