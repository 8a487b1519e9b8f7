#include "detectors/segmentation/call_tokens.h"

namespace syncscope::segmentation {

ThreadTokens tokens_of_thread(const std::vector<Event>& events, uint32_t tid, Tokenizer& tokenize) {
  ThreadTokens seq;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].tid != tid || !is_pattern_call(events[i])) continue;
    seq.tokens.push_back(tokenize(events[i]));
    seq.event_index.push_back(i);
  }
  return seq;
}

}  // namespace syncscope::segmentation
