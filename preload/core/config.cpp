#include "preload/core/config.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "trace/environment.h"

namespace syncscope::preload {
namespace {

// Appends "NAME=VALUE: why" to the knobs said unusable (cut at the buffer's end).
void warn_knob(Config* c, const char* name, const char* value, const char* why) {
  const size_t used = std::strlen(c->knob_warnings);
  if (used + 1 >= sizeof(c->knob_warnings)) return;
  std::snprintf(c->knob_warnings + used, sizeof(c->knob_warnings) - used, "%s%s=%.64s: %s", used > 0 ? "\n" : "",
                name, value, why);
}

// A count from lo to hi (digits only: strtoul takes "-5" as a huge one), or
// the fallback with a warning.
uint32_t parse_u32(Config* c, const char* name, uint32_t fallback, uint32_t lo, uint32_t hi) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  unsigned long value = std::strtoul(text, &end, 10);
  if (*text < '0' || *text > '9' || errno != 0 || *end != '\0' || value < lo || value > hi) {
    char why[128];
    std::snprintf(why, sizeof(why), "not a count from %u to %u, ignored (using %u)", lo, hi, fallback);
    warn_knob(c, name, text, why);
    return fallback;
  }
  return static_cast<uint32_t>(value);
}

// A knob taking one of a few words (nullptr-terminated): false, with a
// warning, for any other value.
void check_word(Config* c, const char* name, const char* const* words) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return;
  std::string list;
  for (const char* const* w = words; *w != nullptr; ++w) {
    if (std::strcmp(text, *w) == 0) return;
    list += list.empty() ? "" : ", ";
    list += *w;
  }
  warn_knob(c, name, text, ("not one of " + list + ", ignored").c_str());
}

constexpr const char* kBooleans[] = {"1", "true", "yes", "0", "false", "no", nullptr};

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
  return env::parse_gpu_sampling_burst(value, &c->gpu_burst_ms, &c->gpu_period_ms);
}

const Config& config() { return g_config; }
void set_config(const Config& config) { g_config = config; }

Config config_from_environment() {
  Config c;
  c.enabled = !is_true(std::getenv(env::kDisable));
  const char* dir = std::getenv(env::kOutputDir);
  if (dir == nullptr || *dir == '\0') dir = "syncscope-trace";
  std::strncpy(c.output_dir, dir, sizeof(c.output_dir) - 1);
  c.flush_ms = parse_u32(&c, env::kFlushMs, c.flush_ms, 1, 60000);
  c.exit_flush_ms = parse_u32(&c, env::kExitFlushMs, c.exit_flush_ms, 0, 60000);
  c.max_trace_mib = parse_u32(&c, env::kMaxTraceMiB, 0, 0, 1u << 30);
  c.ring_events = round_up_pow2(parse_u32(&c, env::kRingEvents, c.ring_events, 64, 1u << 24));
  for (const char* name : {env::kDisable, env::kStacks, env::kPython, env::kDormant, env::kGpuTimeline,
                           env::kGpuTimelineDetach, env::kGpuTimelineBorrowContext}) {
    check_word(&c, name, kBooleans);
  }
  static constexpr const char* kDetails[] = {"full", "aggregated", nullptr};
  static constexpr const char* kLogs[] = {"quiet", "info", "debug", nullptr};
  static constexpr const char* kClocks[] = {"monotonic", "tsc", nullptr};
  static constexpr const char* kApiRecords[] = {"calls", "all", "off", nullptr};
  static constexpr const char* kTimestamps[] = {"offset", "callback", nullptr};
  check_word(&c, env::kDetail, kDetails);
  check_word(&c, env::kLog, kLogs);
  check_word(&c, env::kClock, kClocks);
  check_word(&c, env::kGpuApiRecords, kApiRecords);
  check_word(&c, env::kGpuTimestamps, kTimestamps);
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
  const char* sampling = std::getenv(env::kGpuTimelineSampling);
  if (!parse_gpu_sampling(sampling, &c) && sampling != nullptr && *sampling != '\0') {
    warn_knob(&c, env::kGpuTimelineSampling, sampling, "not full or WINDOWms/PERIODms, ignored (the default)");
  }
  parse_status_channel(std::getenv(env::kStatusFd), &c);
  return c;
}

}  // namespace syncscope::preload
