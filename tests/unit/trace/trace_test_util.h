// Writing small traces for the tests.
#pragma once

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "trace/writer.h"

namespace syncscope::testing {

inline std::string temp_dir(const std::string& name) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("syncscope-trace-test-" + std::to_string(getpid()) + "-" + name))
                        .string();
  std::filesystem::remove_all(dir);
  return dir;
}

inline FileHeader make_header(uint32_t pid) {
  FileHeader h{};
  std::memcpy(h.magic, kTraceMagic, sizeof(h.magic));
  h.version = kTraceVersion;
  h.header_size = sizeof(FileHeader);
  h.pid = pid;
  h.ppid = 1;
  h.start_monotonic_ns = 1000;
  h.start_realtime_ns = 2000;
  h.event_size = sizeof(Event);
  return h;
}

inline Event make_event(uint16_t api, uint64_t start, uint64_t end, uint32_t stack = 0) {
  Event e{};
  e.api = api;
  e.start_ns = start;
  e.end_ns = end;
  e.stack_id = stack;
  e.tid = 7;
  e.device = -1;
  return e;
}

}  // namespace syncscope::testing
