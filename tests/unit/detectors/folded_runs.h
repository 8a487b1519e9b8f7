// A synthetic event stream as the reporter sees a recorded one by default:
// its launches folded into runs by the recorder's own aggregator
// (preload/recording/launch_aggregator.h), the runs folded by the reader
// (fold_launch_run, trace/launch_runs.h), every other call as it was.
#pragma once

#include <algorithm>
#include <vector>

#include "preload/recording/launch_aggregator.h"
#include "trace/launch_runs.h"

namespace syncscope::testing {

// expand: the runs put back launch by launch (expand_launch_run), as the
// reader does for `syncscope dump` and did for every report before folding.
inline std::vector<Event> folded_runs(const std::vector<Event>& events, bool expand = false) {
  preload::LaunchAggregator aggregator(true);
  preload::LaunchAggregator::Output out;
  for (const Event& e : events) aggregator.add(e, &out);
  aggregator.close_all(&out);
  std::vector<Event> folded = out.events;
  for (const LaunchRun& run : out.runs) {
    size_t count = 0;
    const Event* shapes = aggregator.sequence(run.sequence_id, &count);
    if (expand) {
      expand_launch_run(run, shapes, count, &folded);
    } else {
      fold_launch_run(run, fold_sequence(run.sequence_id, shapes, count), &folded);
    }
  }
  std::stable_sort(folded.begin(), folded.end(), [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  return folded;
}

}  // namespace syncscope::testing
