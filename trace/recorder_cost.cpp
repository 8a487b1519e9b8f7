#include "trace/recorder_cost.h"

#include <cstdlib>
#include <string>

#include "trace/process_info_keys.h"

namespace syncscope {

RecorderCost recorder_cost_of(const ProcessTrace& trace) {
  RecorderCost cost;
  const std::string capture = trace.info(info_key::kRecorderCaptureNs);
  if (capture.empty()) return cost;
  cost.known = true;
  cost.capture_ns = std::strtoull(capture.c_str(), nullptr, 10);
  cost.captures = std::strtoull(trace.info(info_key::kRecorderCaptures).c_str(), nullptr, 10);
  cost.collector_cpu_ns = std::strtoull(trace.info(info_key::kRecorderCollectorCpuNs).c_str(), nullptr, 10);
  return cost;
}

uint64_t mean_capture_ns(const RecorderCost& cost) {
  return cost.known && cost.captures > 0 ? cost.capture_ns / cost.captures : 0;
}

}  // namespace syncscope
