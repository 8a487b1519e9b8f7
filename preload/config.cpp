#include "preload/config.h"

#include <cstdlib>
#include <cstring>

#include "trace/environment.h"

namespace syncscope::preload {
namespace {

uint32_t parse_u32(const char* text, uint32_t fallback, uint32_t lo, uint32_t hi) {
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  unsigned long value = std::strtoul(text, &end, 10);
  if (end == text || *end != '\0' || value < lo || value > hi) return fallback;
  return static_cast<uint32_t>(value);
}

bool is_true(const char* text) {
  return text != nullptr &&
         (std::strcmp(text, "1") == 0 || std::strcmp(text, "true") == 0 || std::strcmp(text, "yes") == 0);
}

bool is_false(const char* text) {
  return text != nullptr &&
         (std::strcmp(text, "0") == 0 || std::strcmp(text, "false") == 0 || std::strcmp(text, "no") == 0);
}

uint32_t round_up_pow2(uint32_t v) {
  uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// "FD:PID:DEV:INO", all decimal; anything else leaves no channel.
void parse_status_channel(const char* text, Config* c) {
  if (text == nullptr) return;
  unsigned long long field[4];
  const char* at = text;
  for (int i = 0; i < 4; ++i) {
    char* end = nullptr;
    if (*at < '0' || *at > '9') return;
    field[i] = std::strtoull(at, &end, 10);
    if (*end != (i < 3 ? ':' : '\0')) return;
    at = end + 1;
  }
  if (field[0] > 1u << 30 || field[1] == 0 || field[1] > 1u << 30) return;
  c->status_fd = static_cast<int>(field[0]);
  c->status_owner = static_cast<int>(field[1]);
  c->status_dev = field[2];
  c->status_ino = field[3];
}

Config g_config;

}  // namespace

bool parse_gpu_sampling(const char* value, Config* c) {
  if (value != nullptr && std::strcmp(value, "full") == 0) {
    c->gpu_period_ms = 0;
    return true;
  }
  return env::parse_gpu_sampling_window(value, &c->gpu_window_ms, &c->gpu_period_ms);
}

const Config& config() { return g_config; }
void set_config(const Config& config) { g_config = config; }

Config config_from_environment() {
  Config c;
  c.enabled = !is_true(std::getenv(env::kDisable));
  const char* dir = std::getenv(env::kOutputDir);
  if (dir == nullptr || *dir == '\0') dir = "syncscope-trace";
  std::strncpy(c.output_dir, dir, sizeof(c.output_dir) - 1);
  c.flush_ms = parse_u32(std::getenv(env::kFlushMs), c.flush_ms, 1, 60000);
  c.exit_flush_ms = parse_u32(std::getenv(env::kExitFlushMs), c.exit_flush_ms, 0, 60000);
  c.max_trace_mib = parse_u32(std::getenv(env::kMaxTraceMiB), 0, 0, 1u << 30);
  c.ring_events = round_up_pow2(parse_u32(std::getenv(env::kRingEvents), c.ring_events, 64, 1u << 24));
  const char* detail = std::getenv(env::kDetail);
  c.aggregate_launches = !(detail != nullptr && std::strcmp(detail, "full") == 0);
  c.stacks = !is_false(std::getenv(env::kStacks));
  c.python = !is_false(std::getenv(env::kPython));
  const char* log = std::getenv(env::kLog);
  if (log != nullptr) {
    if (std::strcmp(log, "quiet") == 0) c.log_level = 0;
    if (std::strcmp(log, "debug") == 0) c.log_level = 2;
  }
  const char* clock = std::getenv(env::kClock);
  c.force_monotonic_clock = clock != nullptr && std::strcmp(clock, "monotonic") == 0;
  c.dormant = is_true(std::getenv(env::kDormant));
  // Opt-in until the CUPTI adapter has been proven on a GPU (docs/gpu-timeline.md).
  c.gpu_timeline = is_true(std::getenv(env::kGpuTimeline));
  const char* api_records = std::getenv(env::kGpuApiRecords);
  if (api_records != nullptr && std::strcmp(api_records, "all") == 0) c.gpu_api_records = Config::ApiRecords::kAll;
  if (api_records != nullptr && std::strcmp(api_records, "off") == 0) c.gpu_api_records = Config::ApiRecords::kOff;
  const char* timestamps = std::getenv(env::kGpuTimestamps);
  c.gpu_timestamp_callback = timestamps == nullptr || std::strcmp(timestamps, "offset") != 0;
  parse_gpu_sampling(std::getenv(env::kGpuTimelineSampling), &c);  // invalid: the default
  parse_status_channel(std::getenv(env::kStatusFd), &c);
  return c;
}

}  // namespace syncscope::preload
