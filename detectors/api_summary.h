// Per-process totals of what was recorded: per API (calls, host time, bytes),
// per stack (how much host time each call site cost). A pure function of the
// trace: no I/O, no CUDA. The first analysis; the detectors build beside it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "trace/reader.h"

namespace syncscope {

struct ApiStats {
  uint16_t api = 0;
  uint64_t calls = 0;
  uint64_t total_ns = 0;  // host time inside the call, summed
  uint64_t max_ns = 0;
  uint64_t bytes = 0;
  uint64_t errors = 0;
  std::map<uint8_t, uint64_t> copies_by_direction;  // Direction -> calls
  std::map<uint8_t, uint64_t> copies_by_host_mem;   // HostMem -> calls
  std::set<uint64_t> streams;
};

struct StackStats {
  uint32_t stack_id = 0;
  uint64_t calls = 0;
  uint64_t total_ns = 0;
  std::set<uint16_t> apis;
};

struct ApiSummary {
  std::vector<ApiStats> apis;      // by total host time, descending
  std::vector<StackStats> stacks;  // by total host time, descending
  uint64_t events = 0;  // CUDA calls (syncscope's own marker events left out)
  uint64_t launches = 0;
  uint64_t wall_ns = 0;          // first call start to last call end
  uint64_t host_ns_in_cuda = 0;  // host time inside recorded calls
  uint64_t events_dropped = 0;
};

ApiSummary summarize(const ProcessTrace& trace);

// The same, event by event (a trace read in windows, detectors/windowed_analysis.h).
class ApiSummaryBuilder {
 public:
  void add(const Event& e);
  ApiSummary finish(uint64_t events_dropped) const;

 private:
  std::unordered_map<uint16_t, ApiStats> apis_;
  std::unordered_map<uint32_t, StackStats> stacks_;
  uint64_t calls_ = 0, launches_ = 0, host_ns_ = 0, first_ = UINT64_MAX, last_ = 0;
};

}  // namespace syncscope
