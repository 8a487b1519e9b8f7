#include "report/html_prediction.h"

#include <algorithm>
#include <cstdint>

#include "detectors/finding_rank.h"
#include "report/finding_text.h"
#include "report/gpu_timeline_text.h"
#include "report/html_charts.h"
#include "report/html_escape.h"
#include "report/prediction_text.h"
#include "report/units.h"

namespace syncscope {
namespace {

// "1.61 ms" or "1.58 ms to 1.62 ms": the step without the fix as predicted.
std::string step_span(double low, double high) {
  return format_computed_duration(low) == format_computed_duration(high)
             ? format_computed_duration(low)
             : format_computed_duration(low) + " to " + format_computed_duration(high);
}

std::string pair_svg(double replayed, double low, double high, bool measured, const std::string& what) {
  BeforeAfter chart;
  chart.before = replayed;
  chart.after_low = low;
  chart.after_high = high;
  chart.before_label = "as recorded (replayed): " + format_computed_duration(replayed);
  chart.after_label = what + ": " + step_span(low, high);
  chart.title = "a step as recorded, replayed by the model, " + format_computed_duration(replayed) + "; " + what +
                ", " + step_span(low, high) +
                (measured ? " (GPU times measured)" : " (GPU times bounded from host timing)");
  return before_after_svg(chart);
}

}  // namespace

std::string saving_tag_html(const Finding& f) {
  if (!f.predicted || f.prediction_step_ns <= 0) return "";
  // As the findings' shares are worded: "<1%" rather than a misleading "0%".
  const std::string low = step_share_text(std::max(0.0, saving_share_low(f)));
  const std::string high = step_share_text(std::max(0.0, saving_share_high(f)));
  const std::string share = low == high ? high : low + "–" + high;
  return std::string(" <span class=\"tag saving\" title=\"predicted saving per step\">saves ") +
         saving_bound_words(f.prediction_floor, f.prediction_ceiling) + html_escape(share) + "</span>";
}

std::string prediction_html(const ProcessReport& process, const Finding& f) {
  const std::string line = predicted_saving_text(f, f.prediction_step_ns, measure_advice(*process.trace));
  if (line.empty()) return "";
  return "<div class=\"prediction\"><p class=\"saving\">" + html_escape(line) + "</p>" +
         pair_svg(f.replayed_step_ns, f.step_ns_without_low, f.step_ns_without_high, f.prediction_measured,
                  "without it (" + predicted_fix_words(f) + ")") +
         "</div>";
}

std::string all_fixed_html(const ProcessReport& process, size_t index) {
  for (const AllFixedPrediction& p : process.analysis.all_fixed) {
    if (p.phase_index < 0 || static_cast<size_t>(p.phase_index) != index) continue;
    const std::string line = "<div class=\"prediction\"><p class=\"saving\">" +
                             html_escape(all_fixed_text(p, measure_advice(*process.trace))) + "</p>";
    if (!p.fits) return line + "</div>";  // no picture of a replay that does not fit
    return line +
           pair_svg(p.replayed_step_ns, p.step_ns_without_low, p.step_ns_without_high, p.measured,
                    "every steady finding fixed") +
           "</div>";
  }
  return "";
}

}  // namespace syncscope
