// The repeating pattern of a sequence of call tokens, in time linear in its
// length: the dominant period and the stretches where it holds.
//
// A training step repeats its calls; a model of identical layers repeats a
// layer's calls inside each step too. Distances between a token and its
// previous occurrence peak at both periods; the sequence matches itself
// shifted by the step's period almost everywhere, by a layer's period only
// inside the layers. So: candidate periods are the most common distances
// (and, since in a step of micro-batches every call may recur within the
// step, the rarer calls' distances to their 2nd..8th previous occurrence:
// the 4th upload back is a step back); the period is, among the candidates
// under which nearly as many distinct calls repeat as under the best one
// (or every regular call: one made at least once in 1,024), the one with
// the most matches, a candidate covering every regular call being
// preferred when it matches nearly as often (a layer's period misses the
// upload and the optimizer); and a smaller candidate replaces it where it
// divides it, covers as much and matches nearly as well (a period of two
// identical steps, or of ten steps with a log line in one of them, is one
// step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncscope {

struct RepeatRun {
  size_t begin = 0;  // [begin, end): token positions where the period holds
  size_t end = 0;
};

struct PeriodSearch {
  uint32_t period = 0;          // 0: nothing repeats
  std::vector<RepeatRun> runs;  // in order, disjoint, each at least min_repeats periods long
};

struct PeriodOptions {
  size_t min_repeats = 3;      // a run must hold the period this many times
  double window_match = 0.75;  // share of a period-long window that must repeat (noise tolerance)
  size_t max_candidates = 24;  // most common distances tried
  uint32_t max_period = 1u << 16;
  uint32_t min_period = 1;  // shorter periods are no candidates (segmentation/sub_phases.cpp: past a layer's)
  // The calls each token stands for (a folded run of launches stands for
  // its launches: trace/event.h); nullptr: one each. How often a call is
  // made (rare, regular: below) is counted in calls, so that a checkpoint
  // every hundred steps stays irregular when the steps' launches are folded.
  const std::vector<uint32_t>* weights = nullptr;
  // By token id, the different calls a token stands for (a folded run, the
  // kernels it launches); nullptr: one each. Matches are counted in calls
  // and coverage in different calls, so that a step folded into a token or
  // two scores as it would launch by launch.
  const std::vector<uint32_t>* kinds = nullptr;
};

// `tokens` are small dense ids (0..N-1).
PeriodSearch find_repeats(const std::vector<uint32_t>& tokens, const PeriodOptions& options = {});

}  // namespace syncscope
