#include "detectors/windowed_predictions.h"

#include <algorithm>

namespace syncscope {

void WindowedPredictions::Sum::add(const Sum& other) {
  if (!other.any) return;
  measured = measured && other.measured;  // true until a part is estimated
  bounds.add(other.bounds);
  if (fix.empty()) {
    fix = other.fix;
    dropped_operations = other.dropped_operations;
  }
  any = true;
  low += other.low;
  high += other.high;
  replayed += other.replayed;
  weight += other.weight;
}

void WindowedPredictions::add_window(const Analysis& a, const std::vector<int>& phase_map) {
  ++windows_;
  for (size_t p = 0; p < a.phases.size() && p < phase_map.size(); ++p) {
    const auto merged = static_cast<size_t>(phase_map[p]);
    if (phases_.size() <= merged) phases_.resize(merged + 1);
    // A window whose replay does not fit the phase predicted nothing of it:
    // its steps are left out of the means, not counted as saving nothing.
    const auto unfit = std::find_if(a.all_fixed.begin(), a.all_fixed.end(), [&](const AllFixedPrediction& f) {
      return f.phase_index == static_cast<int>(p) && !f.fits;
    });
    if (unfit == a.all_fixed.end()) phases_[merged].steps += static_cast<double>(a.phases[p].steps);
  }
  for (const AllFixedPrediction& f : a.all_fixed) {
    if (f.phase_index < 0 || static_cast<size_t>(f.phase_index) >= phase_map.size()) continue;
    const double w = static_cast<double>(a.phases[static_cast<size_t>(f.phase_index)].steps);
    PhaseSum& s = phases_[static_cast<size_t>(phase_map[static_cast<size_t>(f.phase_index)])];
    if (!f.fits) {
      s.unfit_recorded += f.recorded_step_ns * w;
      s.unfit_replayed += f.replayed_step_ns * w;
      continue;
    }
    Sum one;
    one.any = true;
    one.measured = f.measured;
    one.bounds.add(f.floor, f.ceiling);
    one.low = f.saving_ns_low * w;
    one.high = f.saving_ns_high * w;
    one.replayed = f.replayed_step_ns * w;
    one.weight = w;
    s.fixed.add(one);
    s.recorded += f.recorded_step_ns * w;
  }
}

WindowedPredictions::Sum WindowedPredictions::finding_sum(const Analysis& a, const Finding& f) const {
  Sum s;
  if (!f.predicted || f.phase != Phase::kSteady || f.phase_index < 0 ||
      static_cast<size_t>(f.phase_index) >= a.phases.size()) {
    return s;
  }
  const double w = static_cast<double>(a.phases[static_cast<size_t>(f.phase_index)].steps);
  s.any = true;
  s.measured = f.prediction_measured;
  s.fix = f.predicted_fix;
  s.dropped_operations = f.predicted_dropped_operations;
  s.bounds.add(f.prediction_floor, f.prediction_ceiling);
  s.low = f.saving_ns_per_step_low * w;
  s.high = f.saving_ns_per_step_high * w;
  s.replayed = f.replayed_step_ns * w;
  s.weight = w;
  return s;
}

void WindowedPredictions::apply(const Sum& sum, int phase, const PhaseInfo& info, Finding* f) const {
  if (!sum.any || phase < 0 || static_cast<size_t>(phase) >= phases_.size() || sum.weight <= 0) return;
  const double steps = phases_[static_cast<size_t>(phase)].steps;  // the predicted windows' steps of the phase
  if (steps <= 0) return;
  f->predicted = true;
  f->prediction_measured = sum.measured;
  f->predicted_fix = sum.fix;
  f->predicted_dropped_operations = sum.dropped_operations;
  f->prediction_floor = sum.bounds.floor();
  f->prediction_ceiling = sum.bounds.ceiling();
  f->saving_ns_per_step_low = sum.low / steps;
  f->saving_ns_per_step_high = sum.high / steps;
  f->prediction_step_ns = info.step_ns;
  f->replayed_step_ns = sum.replayed / sum.weight;
  // As a whole read's: the replay without the fix (whatif::Prediction).
  f->step_ns_without_low = f->replayed_step_ns - f->saving_ns_per_step_high;
  f->step_ns_without_high = f->replayed_step_ns - f->saving_ns_per_step_low;
}

std::vector<AllFixedPrediction> WindowedPredictions::all_fixed(const std::vector<PhaseInfo>& phases,
                                                               const std::vector<int>& phase_to) const {
  std::vector<AllFixedPrediction> out;
  for (size_t p = 0; p < phases_.size() && p < phase_to.size(); ++p) {
    const PhaseSum& s = phases_[p];
    if (p > 0 && phase_to[p] == 0) continue;  // a phase that is no more
    const PhaseInfo& info = phases[static_cast<size_t>(phase_to[p])];
    if (!s.fixed.any && s.unfit_recorded > 0) {  // no predicted window fitted: say so, as a whole read would
      AllFixedPrediction a;
      a.phase_index = phase_to[p];
      a.fits = false;
      a.recorded_step_ns = info.step_ns;
      a.replayed_step_ns = info.step_ns * (s.unfit_replayed / s.unfit_recorded);
      a.step_ns_without_low = a.step_ns_without_high = a.replayed_step_ns;
      out.push_back(a);
      continue;
    }
    if (!s.fixed.any || s.steps <= 0 || s.recorded <= 0) continue;
    AllFixedPrediction a;
    a.phase_index = phase_to[p];
    a.measured = s.fixed.measured;
    a.floor = s.fixed.bounds.floor();
    a.ceiling = s.fixed.bounds.ceiling();
    a.recorded_step_ns = info.step_ns;
    // The replay's error in the predicted windows, carried to the whole.
    a.replayed_step_ns = info.step_ns * (s.fixed.replayed / s.recorded);
    a.saving_ns_low = s.fixed.low / s.steps;
    a.saving_ns_high = s.fixed.high / s.steps;
    a.step_ns_without_low = a.replayed_step_ns - a.saving_ns_high;
    a.step_ns_without_high = a.replayed_step_ns - a.saving_ns_low;
    out.push_back(a);
  }
  return out;
}

}  // namespace syncscope
