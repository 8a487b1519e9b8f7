#include "segmentation/call_tokens.h"

namespace syncscope::segmentation {

ThreadTokens tokens_of_thread(const std::vector<Event>& events, uint32_t tid, Tokenizer& tokenize) {
  ThreadTokens seq;
  // Counted first: a long trace's token vectors, grown by doubling, held
  // up to three times their size while they grew.
  size_t count = 0;
  for (const Event& e : events) count += e.tid == tid && is_pattern_call(e);
  seq.tokens.reserve(count);
  seq.event_index.reserve(count);
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].tid != tid || !is_pattern_call(events[i])) continue;
    seq.push_back(tokenize(events[i]), i, calls_of(events[i]), kernels_of(events[i]));
  }
  return seq;
}

}  // namespace syncscope::segmentation
