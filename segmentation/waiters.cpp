#include "segmentation/waiters.h"

#include <algorithm>
#include <map>

#include "trace/api.h"

namespace syncscope {

void attribute_to_waiters(const std::vector<Event>& events, const std::function<bool(uint32_t)>& has_python,
                          Segmentation* segmentation) {
  // Waits per thread, in start order (events are sorted by start).
  std::map<uint32_t, std::vector<const Event*>> waits;
  for (const Event& e : events) {
    if (e.api == static_cast<uint16_t>(ApiId::syncscope_gil_wait) && e.stack_id != 0) waits[e.tid].push_back(&e);
  }
  if (waits.empty()) return;
  // The thread that waits most often first.
  std::vector<const std::vector<const Event*>*> order;
  for (const auto& [tid, list] : waits) order.push_back(&list);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->size() > b->size(); });

  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    if (e.stack_id == 0 || api_family(e.api) == ApiFamily::kMarker || has_python(e.stack_id)) continue;
    const Event* chosen = nullptr;
    for (const auto* list : order) {
      if (list->front()->tid == e.tid) continue;
      // The last wait that began at or before the call.
      auto it = std::upper_bound(list->begin(), list->end(), e.start_ns,
                                 [](uint64_t t, const Event* w) { return t < w->start_ns; });
      if (it == list->begin()) continue;
      const Event* w = *(it - 1);
      if (w->end_ns < e.end_ns) continue;
      chosen = w;  // the most frequent waiter that covers it wins
      break;
    }
    if (chosen != nullptr) segmentation->waiters[i] = Segmentation::Waiter{chosen->stack_id, chosen->tid};
  }
}

}  // namespace syncscope
