#include "report/prediction_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "report/units.h"

namespace syncscope {
namespace {

std::string share(double part, double whole) { return whole > 0 ? format_percent(std::max(0.0, part) / whole) : "?"; }

// From the GPU timeline, one figure; from host timing alone, the interval
// between the two GPU bounds (whatif/gpu_estimate.h), and how to measure it.
std::string basis_text(bool measured, const std::string& advice) {
  return measured ? "measured" : "estimated from host timing (" + advice + ")";
}

// Savings below this share of a step read "under 1%", with their µs.
constexpr double kNegligibleShare = 0.01;

// "9.7 µs a step (5%)", "9.7 µs to 12.0 µs a step (5% to 7%)", "97.0 µs a
// step (under 1%)", "up to 77 ns a step (under 1%)": the saving's interval
// as the user reads it. Under 1% of a step the µs stay: they rank findings
// whose shares read alike (a Trainer's 13 ms step holds several), and they
// are what carries over to the unrecorded program (README, "What fixing it
// saves"). A floor (whatif::saving_is_a_floor) says so: "at least 113 µs a
// step (15%)", "310 µs to 410 µs a step (13% to 17%) or more"; and a
// ceiling (whatif::saving_is_a_ceiling): "at most 113 µs a step (15%)",
// "... or less", and where it saves next to nothing "no step time as
// replayed, and its own host work may lengthen the step" (a side stream
// measured 5 to 16% slower on a host-bound loop). A fix that costs 1% of
// the step or more as replayed says what: "no step time: as replayed, its
// own host work adds at least 95.0 µs a step (8%)".
std::string saving_span(double low, double high, double step_ns, bool one_figure, bool floor, bool ceiling) {
  const std::string beyond = floor ? " or more" : ceiling ? " or less" : "";
  const std::string as_replayed = floor     ? " as replayed, or more"
                                  : ceiling ? " as replayed, and its own host work may lengthen the step"
                                            : "";
  if (high <= 0) {
    // A fix whose own host work outweighs the wait it takes away (a side
    // stream's operations on a host-bound loop, whatif::kSideStreamOperations)
    // costs step time: said, where it is 1% of the step or more.
    if (step_ns > 0 && -high >= kNegligibleShare * step_ns) {
      const std::string cost = one_figure || format_computed_duration(-high) == format_computed_duration(-low)
                                   ? format_computed_duration(-high) + " a step (" + share(-high, step_ns) + ")"
                                   : format_computed_duration(-high) + " to " + format_computed_duration(-low) +
                                         " a step (" + share(-high, step_ns) + " to " + share(-low, step_ns) + ")";
      return "no step time: as replayed, its own host work adds " + std::string(ceiling ? "at least " : "") + cost;
    }
    return "no step time" + as_replayed;
  }
  const bool negligible = step_ns > 0 && high < kNegligibleShare * step_ns;
  const std::string shares = negligible ? "under 1%" : share(high, step_ns);
  // Next to nothing saved by a fix that adds host work of its own: it may cost more than it saves.
  const std::string may_lengthen = negligible && ceiling ? ", and its own host work may lengthen the step" : "";
  if (one_figure || format_computed_duration(low) == format_computed_duration(high)) {
    return saving_bound_words(floor, ceiling) + format_computed_duration(high) + " a step (" + shares + ")" +
           may_lengthen;
  }
  if (negligible) {
    const std::string from = low > 0 ? format_computed_duration(low) + " to " : "up to ";
    return from + format_computed_duration(high) + " a step (" + shares + ")" + beyond + may_lengthen;
  }
  const std::string span = share(low, step_ns) == share(high, step_ns)
                               ? share(high, step_ns)
                               : share(low, step_ns) + " to " + share(high, step_ns);
  return format_computed_duration(low) + " to " + format_computed_duration(high) + " a step (" + span + ")" + beyond;
}

}  // namespace

const char* saving_bound_words(bool floor, bool ceiling) { return floor ? "at least " : ceiling ? "at most " : ""; }

std::string predicted_fix_words(const Finding& f) {
  if (f.predicted_dropped_operations == 0) return f.predicted_fix;
  return f.predicted_fix + " with the setting's " + std::to_string(f.predicted_dropped_operations) +
         " other operations";
}

std::string predicted_saving_text(const Finding& f, double step_ns, const std::string& advice) {
  if (!f.predicted) return "";
  return "fixing it (" + predicted_fix_words(f) + ") saves " +
         saving_span(f.saving_ns_per_step_low, f.saving_ns_per_step_high, step_ns, f.prediction_measured,
                     f.prediction_floor, f.prediction_ceiling) +
         ", " + basis_text(f.prediction_measured, advice);
}

std::string all_fixed_text(const AllFixedPrediction& p, const std::string& advice) {
  const double step = p.recorded_step_ns;
  if (!p.fits) {
    const double off = step > 0 ? (p.replayed_step_ns - step) / step : 0;
    char percent[16];
    std::snprintf(percent, sizeof(percent), "%+.0f%%", off * 100);
    return "no prediction of what fixing saves: the model replays the recorded steps at " +
           format_computed_duration(p.replayed_step_ns) + " a step against " + format_computed_duration(step) +
           " recorded (" + percent + "), too far off to judge a fix (docs/what-if.md)";
  }
  return "fixing every steady finding saves " +
         saving_span(p.saving_ns_low, p.saving_ns_high, step, p.measured, p.floor, p.ceiling) + ", " +
         basis_text(p.measured, advice);
}

std::string not_judged_text(uint64_t findings) {
  // Why there is none (outside steady state, no modelled fix, a trace read
  // in windows): docs/what-if.md, where the option is documented.
  return "--fail-on-saving: " + std::to_string(findings) + (findings == 1 ? " finding" : " findings") +
         " could not be judged (no predicted saving, or only a ceiling above it) and do not fail it";
}

}  // namespace syncscope
