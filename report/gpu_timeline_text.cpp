#include "report/gpu_timeline_text.h"

#include <cstdint>

#include "detectors/gpu_pace.h"
#include "report/units.h"
#include "trace/environment.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

// "100 ms", "1 s", "1500 ms": as the user wrote the windows, not "100.00 ms".
std::string milliseconds_words(unsigned long long ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// The recording's sampling windows (window and period in ms); false for a
// full timeline or none.
bool gpu_sampling_burst(const ProcessTrace& trace, uint32_t* window, uint32_t* period) {
  return env::parse_gpu_sampling_burst(trace.info(info_key::kGpuTimelineSampling).c_str(), window, period);
}

std::string burst_words(uint32_t window, uint32_t period) {
  return milliseconds_words(window) + " every " + milliseconds_words(period);
}

}  // namespace

std::string gpu_sampling_words(const ProcessTrace& trace) {
  uint32_t window = 0, period = 0;
  return gpu_sampling_burst(trace, &window, &period) ? burst_words(window, period) : "";
}

std::string gpu_sampled_steps_text(const ProcessTrace& trace, const GpuPhaseFigures& figures) {
  if (figures.untimed_steps == 0) return "";
  std::string text =
      std::to_string(figures.steps) + " of " + std::to_string(figures.steps + figures.untimed_steps) + " steps";
  const std::string words = gpu_sampling_words(trace);
  return words.empty() ? text : text + ", " + words;
}

std::string gpu_timeline_absence(const ProcessTrace& trace, bool has_gpu_figures) {
  if (has_gpu_figures) return "";
  const std::string state = trace.info(info_key::kGpuTimeline);
  if (!info_key::gpu_timeline_asked_for(state)) {
    return "timeline not recorded (syncscope run --gpu-timeline records one)";
  }
  if (state.rfind("off", 0) == 0) return "timeline " + state;
  const std::string words = gpu_sampling_words(trace);
  if (!words.empty() && trace.gpu_windows.empty()) {
    return "timeline sampled (" + words +
           ") but no window opened before recording ended: the run was too "
           "short; --gpu-timeline=full measures every step";
  }
  if (!words.empty()) {
    // Windows opened, but none while the GPU worked: a short run whose
    // steps came after the first window (it opens 2 s in, PyTorch's import
    // and start-up often take longer) and ended before the next.
    const size_t n = trace.gpu_windows.size();
    return "timeline sampled (" + words + "), but its " + std::to_string(n) + (n == 1 ? " window" : " windows") +
           " held no kernels, copies or memsets: the run's GPU work fell between them; --gpu-timeline=full "
           "measures every step";
  }
  return "timeline on, but it holds no kernels, copies or memsets";
}

std::string measure_advice(const ProcessTrace& trace) {
  const std::string state = trace.info(info_key::kGpuTimeline);
  if (!info_key::gpu_timeline_asked_for(state)) return "--gpu-timeline measures it";
  if (state.rfind("off", 0) == 0) return "the GPU timeline was " + state;
  return "--gpu-timeline=full measures it";
}

std::string gpu_no_timed_step_text(const ProcessTrace& trace, const PhaseInfo& phase) {
  uint32_t window = 0, period = 0;
  const bool sampled = gpu_sampling_burst(trace, &window, &period);
  // A step is timed only whole inside a window: one longer than the window
  // never is. Shorter ones all missed the windows: the phase ran between
  // them (a short run whose steps began after the first window, which opens
  // 2 s in, before PyTorch's start-up is done).
  const bool longer = sampled && phase.step_ns >= static_cast<double>(window) * 1e6;
  const std::string why =
      !sampled ? "the timeline holds none of their GPU work"
      : longer ? "its steps (" + format_duration(static_cast<uint64_t>(phase.step_ns)) + ") are longer than a window"
               : "its steps ran between the windows (a short run)";
  return "no " + phase.name + " step fell inside a sampling window" +
         (sampled ? " (" + burst_words(window, period) + ")" : "") + ": " + why +
         "; --gpu-timeline=full measures every step, --gpu-timeline=WINDOW/PERIOD sets the windows";
}

std::string gpu_pace_text(const PhaseInfo& phase) {
  if (phase.gpu_paced_step_ns <= kGpuPaceWorthSaying * phase.step_ns) return "";
  return format_duration(static_cast<uint64_t>(phase.gpu_paced_step_ns)) +
         " as the GPU finished them (the host ran ahead)";
}

}  // namespace syncscope
