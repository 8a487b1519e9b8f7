// `--gpu-timeline[=sampled|full|W/P]` (docs/gpu-timeline.md, "Sampling"):
// how much of the run the CUPTI timeline records, as the recorder reads it
// from SYNCSCOPE_GPU_TIMELINE_SAMPLING.
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace syncscope {

// The value given to --gpu-timeline when it has none.
inline constexpr const char* kGpuTimelineSampled = "sampled";

// The recorder's setting for an argument: "" for "sampled" (the recorder's
// default sampling bursts), "full", or "W/P" in milliseconds for a sampling
// burst (the W ms the timeline records of every P ms; the recorder calls it
// a window) and its period, written as durations ("2s/30s", "500ms/5s").
// nullopt with *error when the argument is none of these or the burst is not
// shorter than the period.
std::optional<std::string> gpu_sampling_setting(const std::string& argument, std::string* error);

// `--gpu-timeline[=VALUE]` on a subcommand, checked; *value stays "" when
// the flag is absent. `what` ends the help text ("while attached").
void add_gpu_timeline_flag(CLI::App* cmd, std::string* value, const std::string& what);

// The flag's value as the recorder's settings: *on and *sampling. False (a
// usage error, logged) for a value gpu_sampling_setting refuses.
bool resolve_gpu_timeline_flag(const std::string& value, bool* on, std::string* sampling);

}  // namespace syncscope
