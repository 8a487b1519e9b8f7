#include "report/device_memory.h"

#include <algorithm>
#include <unordered_map>

#include "trace/api.h"

namespace syncscope {

DeviceMemory device_memory(const ProcessTrace& trace) {
  // Calls by their return: an allocation exists once it returns.
  std::vector<const Event*> calls;
  for (const Event& e : trace.events) {
    if (e.flags & kFlagError) continue;
    const ApiFamily family = api_family(e.api);
    if (family == ApiFamily::kAlloc || family == ApiFamily::kFree || e.api == static_cast<uint16_t>(ApiId::cuMemMap) ||
        e.api == static_cast<uint16_t>(ApiId::cuMemUnmap)) {
      calls.push_back(&e);
    }
  }
  std::stable_sort(calls.begin(), calls.end(), [](const Event* a, const Event* b) { return a->end_ns < b->end_ns; });
  DeviceMemory out;
  std::unordered_map<uint64_t, uint64_t> live;  // address -> bytes
  uint64_t bytes = 0;
  for (const Event* e : calls) {
    const ApiFamily family = api_family(e->api);
    if (family == ApiFamily::kAlloc) {
      if (e->bytes == 0 || e->dst == 0) continue;
      uint64_t& held = live[e->dst];
      bytes = bytes - held + e->bytes;  // an address handed out twice: the later one stands
      held = e->bytes;
    } else if (family == ApiFamily::kFree) {
      if (e->dst == 0) continue;  // cudaFree(nullptr): nothing freed
      auto it = live.find(e->dst);
      if (it == live.end()) {
        ++out.unknown_frees;
        continue;
      }
      bytes -= it->second;
      live.erase(it);
    } else if (e->api == static_cast<uint16_t>(ApiId::cuMemMap)) {
      bytes += e->bytes;
    } else {
      bytes -= std::min(bytes, e->bytes);  // cuMemUnmap of a mapping made before the recording
    }
    if (!out.points.empty() && out.points.back().ns == e->end_ns) {
      out.points.back().bytes = bytes;
    } else {
      out.points.push_back({e->end_ns, bytes});
    }
    out.peak = std::max(out.peak, bytes);
  }
  return out;
}

}  // namespace syncscope
