#include "tools/gpu_sampling.h"

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "tools/duration.h"

namespace syncscope {

std::optional<std::string> gpu_sampling_setting(const std::string& argument, std::string* error) {
  if (argument.empty() || argument == kGpuTimelineSampled) return std::string();
  if (argument == "full") return argument;
  const size_t slash = argument.find('/');
  if (slash != std::string::npos) {
    const std::optional<long long> burst = parse_duration_ms(argument.substr(0, slash));
    const std::optional<long long> period = parse_duration_ms(argument.substr(slash + 1));
    constexpr long long kDayMs = 86400000;
    if (burst && period && *burst >= 1 && *period <= kDayMs && *burst < *period) {
      return std::to_string(*burst) + "/" + std::to_string(*period);
    }
    if (burst && period && *burst >= 1 && *period <= kDayMs) {
      *error = "the sampling burst (" + argument.substr(0, slash) + ") must be shorter than the period (" +
               argument.substr(slash + 1) + ")";
      return std::nullopt;
    }
  }
  *error = "expected sampled, full, or BURST/PERIOD durations such as 1s/10s (got '" + argument + "')";
  return std::nullopt;
}

void add_gpu_timeline_flag(CLI::App* cmd, std::string* value, const std::string& what) {
  cmd->add_flag(std::string("--gpu-timeline{") + kGpuTimelineSampled + "}", *value,
                "Also record the GPU's activity with CUPTI " + what +
                    ": sampled (default: a burst of 1s every 10s), full, or BURST/PERIOD such as 2s/30s "
                    "(docs/gpu-timeline.md)")
      ->check([](const std::string& argument) {
        std::string error;
        return gpu_sampling_setting(argument, &error) ? std::string() : error;
      });
}

bool resolve_gpu_timeline_flag(const std::string& value, bool* on, std::string* sampling) {
  if (value.empty()) return true;
  std::string error;
  std::optional<std::string> setting = gpu_sampling_setting(value, &error);
  if (!setting) {
    spdlog::error("--gpu-timeline: {}", error);
    return false;
  }
  *on = true;
  *sampling = *setting;
  return true;
}

}  // namespace syncscope
