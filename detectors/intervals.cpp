#include "detectors/intervals.h"

#include <algorithm>

namespace syncscope {

std::vector<Interval> merged(std::vector<Interval> list) {
  std::sort(list.begin(), list.end());
  std::vector<Interval> out;
  for (const Interval& i : list) {
    if (!out.empty() && i.first <= out.back().second) {
      out.back().second = std::max(out.back().second, i.second);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

uint64_t union_within(const std::vector<Interval>& disjoint, uint64_t lo, uint64_t hi) {
  auto it = std::lower_bound(disjoint.begin(), disjoint.end(), lo,
                             [](const Interval& a, uint64_t t) { return a.second <= t; });  // first ending after lo
  uint64_t total = 0;
  for (; it != disjoint.end() && it->first < hi; ++it) total += std::min(it->second, hi) - std::max(it->first, lo);
  return total;
}

}  // namespace syncscope
