#include "segmentation/pattern_steps.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope::segmentation {
namespace {

// A sub-phase's piece spans at least this many periods: a pass repeats
// inside its own stretch, not only from one stretch to the next.
constexpr size_t kMinSubPhasePiecePeriods = 2;
// Inside a sub-phase's stretch, a run of this many calls that do not repeat
// (a checkpoint between an eval pass and the next train step) ends a piece:
// a tenth of a period, and never fewer than kMinGapCalls.
constexpr size_t kGapPeriodInverse = 10;
constexpr size_t kMinGapCalls = 3;
// A pass runs kernels: at least 1/this of its first period's calls are
// launches, of at least kMinPassKernels different kernels.
constexpr size_t kPassLaunchShareInverse = 2;
constexpr size_t kMinPassKernels = 2;
// A step is like the piece's first when at least 1/this of its calls are
// the same call at the same place.
constexpr size_t kLikeFirstShareInverse = 2;
// The main phase's runs begin where the longest piece's steps begin, judged
// on up to this many calls of its first step (StepCutter::align_start).
constexpr size_t kAlignCalls = 32;
// ... over at most this many shifts (a step of 65,536 calls would cost 2M
// comparisons a run).
constexpr size_t kMaxAlignShifts = 4096;

// Cuts the runs of one period search into pieces of like steps and adds
// their steps. Its steps, in the order the search runs them:
// cut_run -> (sub-phases: repeating_stretches) -> add_piece -> emit.
class StepCutter {
 public:
  StepCutter(const std::vector<Event>& events, const ThreadTokens& seq, size_t period, uint64_t period_calls,
             const std::vector<uint32_t>* region_of, size_t skip_steps, PhaseSteps* out)
      : events_(events),
        seq_(seq),
        p_(period),
        n_(seq.tokens.size()),
        weights_(seq.weights_or_null()),
        period_calls_(period_calls),
        region_of_(region_of),
        skip_steps_(skip_steps),
        min_piece_(region_of != nullptr ? kMinSubPhasePiecePeriods * period : period),
        max_gap_(region_of != nullptr ? std::max<size_t>(kMinGapCalls, period / kGapPeriodInverse) : n_),
        out_(out) {}

  // A run of the period, cut where the region changes (sub-phases only).
  void cut_run(const RepeatRun& run) {
    size_t piece_begin = run.begin;
    for (size_t pos = run.begin; pos <= run.end; ++pos) {
      if (pos < run.end && (pos == piece_begin || same_region(pos, pos - 1))) continue;
      size_t b = piece_begin, e = pos;
      piece_begin = pos;
      if (region_of_ == nullptr) {
        add_piece(b, e);
      } else {
        repeating_stretches(b, e);
      }
    }
  }

 private:
  const Event& event_at(size_t k) const { return events_[seq_.event_index[k]]; }

  bool same_region(size_t a, size_t b) const { return region_of_ == nullptr || (*region_of_)[a] == (*region_of_)[b]; }

  // The call at k equals the one a period before or after it, in its region.
  bool repeats(size_t k) const {
    return (k + p_ < n_ && same_region(k, k + p_) && seq_.tokens[k] == seq_.tokens[k + p_]) ||
           (k >= p_ && same_region(k, k - p_) && seq_.tokens[k] == seq_.tokens[k - p_]);
  }

  // Repeating stretches of [b, e), split at gaps of max_gap_ calls.
  void repeating_stretches(size_t b, size_t e) {
    size_t start = e, last_good = 0, bad = 0;
    for (size_t k = b; k < e; ++k) {
      if (repeats(k)) {
        if (start == e) start = k;
        last_good = k;
        bad = 0;
      } else if (start != e && ++bad >= max_gap_) {
        add_piece(start, last_good + 1);
        start = e;
        bad = 0;
      }
    }
    if (start != e) add_piece(start, last_good + 1);
  }

  // Every step must look like the piece's first: a uniform loop (the same
  // copy and sync again and again) repeats at any period and would otherwise
  // join the pass it follows; an eval pass of identical layers half-matches
  // a training step's period.
  bool like_first(size_t piece, size_t k, size_t length) const {
    size_t same = 0;
    for (size_t j = 0; j < length; ++j) same += seq_.tokens[k + j] == seq_.tokens[piece + j];
    return kLikeFirstShareInverse * same >= length;
  }

  // Where the step that begins at k ends: a period of calls on. Launch by
  // launch that is p_ tokens; where tokens are folded runs standing for
  // many launches (weights_), the token boundary nearest to a period's calls
  // on, so that a call or two more in a step (a log line's read-back) moves
  // the boundary by a call or two, as it does launch by launch, not by a
  // whole run.
  size_t advance(size_t k) const {
    if (weights_ == nullptr) return k + p_;
    uint64_t sum = 0;
    size_t j = k;
    while (j < n_ && sum < period_calls_) {
      const uint64_t w = (*weights_)[j];
      if (sum + w > period_calls_ && sum + w - period_calls_ > period_calls_ - sum && j > k) break;
      sum += w;
      ++j;
    }
    // A period's calls past the end: a step there would not be whole.
    return sum < period_calls_ && j == n_ ? n_ + 1 : j;
  }

  // [b, e) cut into pieces of steps like their first.
  void add_piece(size_t b, size_t e) {
    size_t piece = b, k = advance(b);
    for (; advance(k) <= e; k = advance(k)) {
      if (like_first(piece, k, p_)) continue;
      pieces_.emplace_back(piece, k);
      piece = k;
    }
    // The calls after the last whole step (the start of a checkpoint after
    // an eval pass) stay with the piece only if they begin like its steps.
    if (k < e && k > piece && !like_first(piece, k, e - k)) e = k;
    pieces_.emplace_back(piece, e);
  }

 public:
  // Emits the pieces cut so far. The main phase keeps only the pieces whose
  // first step shares at least half its calls (in any order: a piece may
  // begin mid-step) with the longest piece's: one period search finds every
  // stretch of its period, and a few pairs of calls at start-up (a model's
  // parameters copied and synced one by one) are not steps of the training
  // loop that repeats at the same period later.
  void emit_pieces() {
    size_t shift = 0;
    size_t longest = pieces_.size();
    for (size_t i = 0; i < pieces_.size(); ++i) {
      const size_t steps = (pieces_[i].second - pieces_[i].first) / p_;
      if (longest == pieces_.size() || steps > (pieces_[longest].second - pieces_[longest].first) / p_) longest = i;
    }
    for (size_t i = 0; i < pieces_.size(); ++i) {
      // A run's pieces (contiguous: cut where a step is unlike the first)
      // move together, by the shift that aligns the run's first piece.
      const bool starts_a_run = i == 0 || pieces_[i].first != pieces_[i - 1].second;
      if (starts_a_run && region_of_ == nullptr) {
        shift = align_start(pieces_[longest].first, pieces_[i].first) - pieces_[i].first;
      }
      if (region_of_ == nullptr && i != longest && !same_calls(pieces_[longest].first, pieces_[i].first)) continue;
      // The run's last piece ends as much later, short of the next run.
      const bool ends_a_run = i + 1 == pieces_.size() || pieces_[i + 1].first != pieces_[i].second;
      const size_t limit = i + 1 < pieces_.size() ? pieces_[i + 1].first : n_;
      const size_t end = std::min(ends_a_run ? limit : n_, pieces_[i].second + shift);
      emit(pieces_[i].first + shift, end);
    }
    pieces_.clear();
  }

 private:
  // Where a run's piece that begins at b starts its first step: the shift
  // within a period at which its calls best match the first calls of the
  // longest piece's first step (at `canonical`), where that matches better
  // than b itself. A run of the loop's period may resume inside the extra
  // work before it (an eval pass of identical layers half-matches a
  // training step one period on): steps laid from there would take the
  // pass's last batches into the loop.
  size_t align_start(size_t canonical, size_t b) const {
    const size_t width = std::min(p_, kAlignCalls);
    auto matches_at = [&](size_t start) {
      size_t same = 0;
      for (size_t j = 0; j < width && start + j < n_; ++j) same += seq_.tokens[start + j] == seq_.tokens[canonical + j];
      return same;
    };
    size_t best = b, best_same = matches_at(b);
    const size_t shifts = std::min(p_, kMaxAlignShifts);
    for (size_t s = b + 1; s < b + shifts && s + width <= n_ && best_same < width; ++s) {
      const size_t same = matches_at(s);
      if (same > best_same) best = s, best_same = same;
    }
    return best;
  }

  bool same_calls(size_t a, size_t b) const {
    std::unordered_map<uint32_t, int> count;
    for (size_t j = 0; j < p_; ++j) ++count[seq_.tokens[a + j]];
    size_t shared = 0;
    for (size_t j = 0; j < p_; ++j) {
      auto it = count.find(seq_.tokens[b + j]);
      if (it != count.end() && it->second > 0) {
        --it->second;
        ++shared;
      }
    }
    return kLikeFirstShareInverse * shared >= p_;
  }

  // A pass runs kernels: a loop of copies (torch.save's tensor by tensor
  // read-back) belongs to the step it happens in.
  // Calls and launches count what a folded run stands for (calls_of), and
  // a folded run the kernels it launches (kernels_of).
  bool runs_kernels(size_t b) const {
    std::unordered_map<uint32_t, uint64_t> kernels;  // token -> different kernels
    uint64_t launches = 0, calls = 0;
    for (size_t k = b; k < b + p_; ++k) {
      calls += calls_of(event_at(k));
      if (api_family(event_at(k).api) != ApiFamily::kLaunch) continue;
      launches += calls_of(event_at(k));
      kernels[seq_.tokens[k]] = kernels_of(event_at(k));
    }
    uint64_t different = 0;
    for (const auto& [token, n] : kernels) different += n;
    return kPassLaunchShareInverse * launches >= calls && different >= kMinPassKernels;
  }

  // The steps of the piece [b, e), one per whole period, and its stretch.
  void emit(size_t b, size_t e) {
    if (e <= b || e - b < min_piece_) return;
    if (region_of_ != nullptr && !runs_kernels(b)) return;
    for (size_t k = b, next; (next = advance(k)) <= e; k = next) {
      uint64_t start = event_at(k).start_ns;
      uint64_t end = next < e ? event_at(next).start_ns : event_at(next - 1).end_ns + 1;
      if (skipped_ < skip_steps_) {
        ++skipped_;
        continue;
      }
      out_->steps.add(start, end);
    }
    out_->spans.emplace_back(event_at(b).start_ns, event_at(e - 1).end_ns + 1);
  }

  const std::vector<Event>& events_;
  const ThreadTokens& seq_;
  const size_t p_;
  const size_t n_;
  const std::vector<uint32_t>* weights_;  // calls per token, nullptr: one each
  const uint64_t period_calls_;           // calls in a period
  const std::vector<uint32_t>* region_of_;
  const size_t skip_steps_;
  const size_t min_piece_;
  const size_t max_gap_;
  PhaseSteps* out_;
  size_t skipped_ = 0;
  std::vector<std::pair<size_t, size_t>> pieces_;  // [begin, end) in seq_, in order
};

}  // namespace

void steps_from_runs(const std::vector<Event>& events, const ThreadTokens& seq, const PeriodSearch& found,
                     const std::vector<uint32_t>* region_of, size_t skip_steps, PhaseSteps* out) {
  // The calls of one period, a folded run counting its launches.
  uint64_t calls = found.period;
  if (seq.weights_or_null() != nullptr && !found.runs.empty() &&
      found.runs.front().begin + found.period <= seq.tokens.size()) {
    calls = 0;
    for (size_t k = found.runs.front().begin; k < found.runs.front().begin + found.period; ++k) calls += seq.weights[k];
  }
  StepCutter cutter(events, seq, found.period, calls, region_of, skip_steps, out);
  for (const RepeatRun& run : found.runs) cutter.cut_run(run);
  cutter.emit_pieces();
  out->info.source = StepSource::kPattern;
  out->info.calls_per_step = static_cast<uint32_t>(calls);
}

}  // namespace syncscope::segmentation
