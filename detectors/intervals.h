// Unions of time intervals: what the GPU timeline's figures are made of
// (busy time, kernels overlapping a copy).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace syncscope {

using Interval = std::pair<uint64_t, uint64_t>;  // [start, end) ns

// Sorted, disjoint: the union of the intervals.
std::vector<Interval> merged(std::vector<Interval> list);

// Length of a union (sorted, disjoint intervals) inside [lo, hi).
uint64_t union_within(const std::vector<Interval>& disjoint, uint64_t lo, uint64_t hi);

}  // namespace syncscope
