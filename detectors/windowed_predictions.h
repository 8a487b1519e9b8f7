// Predictions (issue 27) for a trace analysed in windows of events
// (windowed_analysis.h): the replay needs a window's events, so each of the
// first kPredictedWindows windows with steps is predicted on its own (by the
// hook the analysis's entry point gives, analysis/windowed_read.cpp), and
// the whole trace's figures are the step-weighted means over those windows:
// a finding's saving per step is what it saves in them divided by all their
// steps of its phase (a window where it did not occur saved nothing).
// Bounded: a day-long trace is not replayed a thousand times.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "detectors/analysis.h"

namespace syncscope {

class WindowedPredictions {
 public:
  static constexpr size_t kPredictedWindows = 8;

  // Whether the next window with steps is predicted.
  bool wanted() const { return windows_ < kPredictedWindows; }
  // A predicted window's analysis `a`; `phase_map` maps its phases to the
  // whole's. Call before its findings are merged.
  void add_window(const Analysis& a, const std::vector<int>& phase_map);
  // The sums a finding of the window brought (window-local phase index):
  // kept with the finding as it merges (see Sum).
  struct Sum {
    bool any = false;
    bool measured = true;
    SavingBounds bounds;  // parts that save at least, or at most, their figure
    std::string fix;
    uint32_t dropped_operations = 0;                     // Finding::predicted_dropped_operations
    double low = 0, high = 0, replayed = 0, weight = 0;  // step-weighted
    void add(const Sum& other);
  };
  Sum finding_sum(const Analysis& a, const Finding& f) const;
  // Sets the predictions of `f`, a finding of the whole in `phase` (index
  // into the whole's phases), from its merged sum.
  void apply(const Sum& sum, int phase, const PhaseInfo& info, Finding* f) const;
  // The whole's "all fixed" per phase; `phase_to` maps the windows' merged
  // phases to the final ones (dropped phases map to 0 and are left out).
  std::vector<AllFixedPrediction> all_fixed(const std::vector<PhaseInfo>& phases,
                                            const std::vector<int>& phase_to) const;

 private:
  struct PhaseSum {
    double steps = 0;  // of the predicted windows
    Sum fixed;         // all fixed: savings low/high, replayed and recorded step, step-weighted
    double recorded = 0;
    double unfit_recorded = 0, unfit_replayed = 0;  // windows whose replay did not fit, step-weighted
  };
  size_t windows_ = 0;
  std::vector<PhaseSum> phases_;  // by merged phase
};

}  // namespace syncscope
