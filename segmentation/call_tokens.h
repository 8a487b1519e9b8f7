// The calls the step search reads (segmentation/segmentation.h) and the tokens
// it compares them by. Called once per event: small and inline.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/api.h"
#include "trace/event.h"

namespace syncscope::segmentation {

// Calls that make up a step's pattern. Polls, event records and stream waits
// come and go with timing (allocator bookkeeping); captured work does not run.
inline bool is_pattern_call(const Event& e) {
  ApiFamily f = api_family(e.api);
  return f != ApiFamily::kQuery && f != ApiFamily::kEventRecord && f != ApiFamily::kStreamWait &&
         f != ApiFamily::kMarker && (e.flags & kFlagCapturing) == 0;
}

// Work queued on a stream without another call's company: a launch, a
// memset (a folded run of launches is one).
inline bool is_queued_work(const Event& e) {
  const ApiFamily f = api_family(e.api);
  return f == ApiFamily::kLaunch || f == ApiFamily::kMemset;
}

// A call of `id` that succeeded.
inline bool is_api(const Event& e, ApiId id) { return e.api == static_cast<uint16_t>(id) && !(e.flags & kFlagError); }

// Mixing constant of running hashes over tokens and call keys: a prime, so
// that nearby values land far apart.
inline constexpr uint64_t kHashPrime = 1000003u;

// A launch is its kernel (or graph) and stream; any other call its API,
// call site and stream. Tokens are small dense ids, in order of first sight.
class Tokenizer {
 public:
  uint32_t operator()(const Event& e) {
    ApiFamily f = api_family(e.api);
    uint64_t what = (f == ApiFamily::kLaunch || f == ApiFamily::kGraphLaunch) ? e.dst : e.stack_id;
    uint64_t key = what * kHashPrime ^ e.stream * kStreamPrime ^ (uint64_t{e.api} << kApiShift);
    return ids_.emplace(key, static_cast<uint32_t>(ids_.size())).first->second;
  }

 private:
  // A second, different prime for the stream, so that a kernel on one stream
  // and another kernel on another rarely meet; the API id takes the top byte.
  static constexpr uint64_t kStreamPrime = 7919u;
  static constexpr int kApiShift = 56;
  std::unordered_map<uint64_t, uint32_t> ids_;
};

// One thread's pattern calls as tokens, with the events they came from and,
// when some are folded runs (trace/event.h), the calls each stands for.
struct ThreadTokens {
  std::vector<uint32_t> tokens;
  std::vector<size_t> event_index;
  std::vector<uint32_t> weights;  // calls_of each token's event; empty when every one is 1
  std::vector<uint32_t> kinds;    // by token id: the different calls it stands for (kernels_of); empty: 1 each

  void push_back(uint32_t token, size_t index, uint64_t calls, uint64_t different = 1) {
    if (calls != 1 && weights.size() < tokens.size()) weights.assign(tokens.size(), 1);  // the first that is not 1
    if (calls != 1 || !weights.empty()) weights.push_back(static_cast<uint32_t>(calls));
    if (different != 1 || !kinds.empty()) {
      if (kinds.size() <= token) kinds.resize(size_t{token} + 1, 1);
      kinds[token] = static_cast<uint32_t>(different);
    }
    tokens.push_back(token);
    event_index.push_back(index);
  }
  const std::vector<uint32_t>* weights_or_null() const { return weights.empty() ? nullptr : &weights; }
};

ThreadTokens tokens_of_thread(const std::vector<Event>& events, uint32_t tid, Tokenizer& tokenize);

// The middle element (the upper one of an even count): always a value that
// occurs, so "the step with the median number of calls" exists. 0 when empty.
template <typename T>
T median(std::vector<T> values) {
  if (values.empty()) return T{};
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace syncscope::segmentation
