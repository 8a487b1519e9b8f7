#include "segmentation/sub_phases.h"

#include <algorithm>

#include "segmentation/pattern_steps.h"
#include "segmentation/period_search.h"

namespace syncscope::segmentation {
namespace {

// The shortest sequence find_repeats searches: two periods' worth of its
// minimum repeats.
constexpr size_t kMinSearchedCalls = 2 * PeriodOptions{}.min_repeats;
// A pass repeats inside a stretch (several batches per evaluation): its
// period is at most 1/this of the median stretch, and never under
// kMinSubPhasePeriod. A period as long as a whole stretch would only say
// that the stretches look alike (eval + the train step around it, every N
// steps).
constexpr double kStretchPeriodInverse = 2;
constexpr double kMinSubPhasePeriod = 2.0;
// A pass's batch makes a call besides its launches (the batch's upload, a
// loss read); a layer inside the batch's forward is launches alone and
// repeats more often. A period whose repeats hold such a call, recurring
// one period later, in fewer than this share of their periods repeats
// launches alone (a checkpoint's copies among the layers do not make it a
// batch's): the search goes past it, up to kMaxLongerSearches times, for
// one that repeats a call.
constexpr double kMinPeriodsWithACall = 0.5;
constexpr int kMaxLongerSearches = 3;

// The picked calls as a sequence of their own; *region_of gets each one's region.
ThreadTokens picked_sequence(const ThreadTokens& main_seq, const Picked& picked, std::vector<uint32_t>* region_of) {
  ThreadTokens seq;
  *region_of = picked.region_of;
  for (size_t k : picked.positions) {
    const uint32_t token = main_seq.tokens[k];
    seq.push_back(token, main_seq.event_index[k], main_seq.weights.empty() ? 1 : main_seq.weights[k],
                  token < main_seq.kinds.size() ? main_seq.kinds[token] : 1);
  }
  return seq;
}

uint32_t max_sub_phase_period(const Picked& picked) {
  std::vector<double> lengths(picked.regions, 0);
  for (uint32_t region : picked.region_of) ++lengths[region];
  std::vector<double> used;
  for (double l : lengths) {
    if (l > 0) used.push_back(l);
  }
  return static_cast<uint32_t>(std::max(kMinSubPhasePeriod, median(used) / kStretchPeriodInverse));
}

// Whether the repeats with period `found.period` hold, in most of their
// periods (kMinPeriodsWithACall), a call other than queued work
// (segmentation/call_tokens.h) that recurs one period later.
bool repeats_a_call(const std::vector<Event>& events, const ThreadTokens& seq, const PeriodSearch& found) {
  const size_t p = found.period;
  size_t periods = 0, with_a_call = 0;
  for (const RepeatRun& run : found.runs) {
    for (size_t start = run.begin; start + p <= run.end; start += p, ++periods) {
      for (size_t k = start; k < start + p && k + p < run.end; ++k) {
        if (seq.tokens[k] == seq.tokens[k + p] && !is_queued_work(events[seq.event_index[k]])) {
          ++with_a_call;
          break;
        }
      }
    }
  }
  return static_cast<double>(with_a_call) >= kMinPeriodsWithACall * static_cast<double>(periods);
}

// The repeats of `seq`: the dominant period's, unless it repeats launches
// alone (a layer's) and a longer period repeats another call too (a batch's,
// kMaxLongerSearches).
PeriodSearch pass_repeats(const std::vector<Event>& events, const ThreadTokens& seq, PeriodOptions options) {
  const PeriodSearch found = find_repeats(seq.tokens, options);
  if (found.period == 0 || repeats_a_call(events, seq, found)) return found;
  uint32_t last = found.period;
  for (int search = 0; search < kMaxLongerSearches; ++search) {
    options.min_period = last + 1;
    PeriodSearch longer = find_repeats(seq.tokens, options);
    if (longer.period == 0) break;
    if (repeats_a_call(events, seq, longer)) return longer;
    last = longer.period;
  }
  return found;
}

// What is left of `seq` (and its regions) outside the runs `found`, for the
// next round.
void keep_outside_runs(const PeriodSearch& found, ThreadTokens* seq, std::vector<uint32_t>* region_of) {
  ThreadTokens rest;
  std::vector<uint32_t> rest_region;
  size_t next_run = 0;
  for (size_t k = 0; k < seq->tokens.size(); ++k) {
    while (next_run < found.runs.size() && found.runs[next_run].end <= k) ++next_run;
    if (next_run < found.runs.size() && k >= found.runs[next_run].begin) continue;
    const uint32_t token = seq->tokens[k];
    rest.push_back(token, seq->event_index[k], seq->weights.empty() ? 1 : seq->weights[k],
                   token < seq->kinds.size() ? seq->kinds[token] : 1);
    rest_region.push_back((*region_of)[k]);
  }
  *seq = std::move(rest);
  *region_of = std::move(rest_region);
}

}  // namespace

std::vector<PhaseSteps> sub_phases(const std::vector<Event>& events, const ThreadTokens& main_seq,
                                   const Picked& picked) {
  std::vector<PhaseSteps> found_phases;
  std::vector<uint32_t> region_of;
  ThreadTokens seq = picked_sequence(main_seq, picked, &region_of);
  PeriodOptions options;
  options.max_period = max_sub_phase_period(picked);
  for (int round = 0; round < kMaxSubPhases && seq.tokens.size() >= kMinSearchedCalls; ++round) {
    options.weights = seq.weights_or_null();
    options.kinds = seq.kinds.empty() ? nullptr : &seq.kinds;
    PeriodSearch found = pass_repeats(events, seq, options);
    if (found.period == 0) break;
    PhaseSteps phase;
    steps_from_runs(events, seq, found, &region_of, 0, &phase);
    if (phase.steps.size() >= kMinSteadySteps) {
      finish_phase(phase);
      found_phases.push_back(std::move(phase));
    }
    keep_outside_runs(found, &seq, &region_of);
  }
  return found_phases;
}

}  // namespace syncscope::segmentation
