#include "analysis/windowed_read.h"

#include <set>
#include <string>
#include <vector>

#include "analysis/predictions.h"
#include "detectors/windowed_analysis.h"

namespace syncscope {

AnalysedTrace analyze_in_windows(TraceStream& stream, const TraceAnalysisOptions& options) {
  const uint64_t per_window = options.window_events;
  // The first windows with steps are predicted on their own (detectors/windowed_predictions.h).
  WindowedAnalysis windows(options.steps, [&options](const ProcessTrace& window, Analysis* a) {
    add_predictions(window, a, options.code);
  });
  AnalysedTrace out;
  std::set<uint32_t> threads;
  // One window is held back until the next is read: a short last one is
  // analysed with it.
  std::vector<Event> window, held;
  bool holding = false;
  auto analyse = [&](std::vector<Event> events, bool final_window) {
    windows.add(stream.tables(), std::move(events), final_window);
    if (options.progress) {
      options.progress("analysed window " + std::to_string(windows.windows()) + " (" +
                       std::to_string(windows.carried()) + " events carried over)");
    }
  };
  while (stream.next(per_window, &window)) {
    if (!out.span.any) out.span.start_ns = window.front().start_ns;
    for (const Event& e : window) {
      out.span.end_ns = std::max(out.span.end_ns, e.end_ns);
      out.span.any = true;
      threads.insert(e.tid);
    }
    if (holding && stream.done() && window.size() < per_window / 2) {
      held.insert(held.end(), window.begin(), window.end());
      analyse(std::move(held), /*final_window=*/true);
      holding = false;
      continue;
    }
    if (holding) analyse(std::move(held), /*final_window=*/false);
    held = std::move(window);
    window.clear();
    holding = true;
    if (stream.done()) {
      analyse(std::move(held), /*final_window=*/true);
      holding = false;
    }
  }
  if (holding) analyse(std::move(held), /*final_window=*/true);  // the file's last events came out early
  out.trace = std::move(stream.tables());
  out.trace.events.clear();
  out.windows = windows.windows();
  out.analysis = windows.analysis();
  out.summary = windows.summary(out.trace.events_dropped);
  out.threads.assign(threads.begin(), threads.end());
  return out;
}

}  // namespace syncscope
