#include "policy/saving_gate.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "detectors/finding_rank.h"
#include "policy/text_util.h"

namespace syncscope {

absl::StatusOr<double> parse_saving_threshold(std::string_view text) {
  const std::string_view value = trim(text);
  const absl::Status bad = absl::InvalidArgumentError("expected a percentage like 2% (of a step, 0% to 100%), not '" +
                                                      std::string(text) + "'");
  if (value.size() < 2 || value.back() != '%') return bad;
  const std::string number(value.substr(0, value.size() - 1));
  char* end = nullptr;
  const double percent = std::strtod(number.c_str(), &end);
  if (end == number.c_str() || *end != '\0' || !std::isfinite(percent) || percent < 0 || percent > 100) return bad;
  return percent / 100;
}

std::string saving_threshold_text(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g%%", share * 100);
  return buffer;
}

const char* saving_check_name(SavingCheck check) {
  switch (check) {
    case SavingCheck::kOver:
      return "over";
    case SavingCheck::kUnder:
      return "under";
    case SavingCheck::kNotPredicted:
      return "not-judged";
    case SavingCheck::kNotGated:
      break;
  }
  return nullptr;
}

SavingCheck check_saving(const std::optional<double>& threshold, const Finding& f, bool counted) {
  if (!threshold || !counted) return SavingCheck::kNotGated;
  if (!f.predicted || f.prediction_step_ns <= 0) return SavingCheck::kNotPredicted;
  if (f.prediction_ceiling) {
    return saving_share_high(f) > *threshold ? SavingCheck::kNotPredicted : SavingCheck::kUnder;
  }
  return saving_share_low(f) > *threshold ? SavingCheck::kOver : SavingCheck::kUnder;
}

std::string saving_over_reason(double threshold, const Finding& f) {
  char share[32];
  std::snprintf(share, sizeof(share), "%.1f%%", saving_share_low(f) * 100);
  return std::string(f.prediction_measured ? "saves " : "saves at least ") + share + " of a step > " +
         saving_threshold_text(threshold);
}

}  // namespace syncscope
