#include "detectors/finding_rank.h"

namespace syncscope {
namespace {

double share_of_step(const Finding& f, double saving_ns) {
  return f.predicted && f.prediction_step_ns > 0 ? saving_ns / f.prediction_step_ns : 0;
}

}  // namespace

double saving_share_low(const Finding& f) { return share_of_step(f, f.saving_ns_per_step_low); }
double saving_share_high(const Finding& f) { return share_of_step(f, f.saving_ns_per_step_high); }
double saving_share_mid(const Finding& f) {
  return share_of_step(f, (f.saving_ns_per_step_low + f.saving_ns_per_step_high) / 2);
}

double rank_share(const Finding& f) {
  return f.predicted && f.prediction_step_ns > 0 ? saving_share_mid(f) : f.severity;
}

bool ranks_before(const Finding& x, const Finding& y) {
  if ((x.phase == Phase::kSteady) != (y.phase == Phase::kSteady)) return x.phase == Phase::kSteady;
  return rank_share(x) > rank_share(y);
}

}  // namespace syncscope
