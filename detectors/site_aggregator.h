// Groups the events a detector flags into one Finding per call site (stack),
// cause, API sequence and phase, and fills the per-step figures.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "detectors/finding.h"
#include "detectors/steps.h"
#include "trace/event.h"

namespace syncscope {

class SiteAggregator {
 public:
  SiteAggregator(Category category, const StepInfo& steps) : category_(category), steps_(steps) {}

  // One flagged occurrence: `anchor` decides site, thread and phase;
  // `blocked_ns` is the host time it cost.
  void add(const Event& anchor, const std::string& api, const std::string& sequence, const std::string& cause,
           uint64_t blocked_ns, uint64_t bytes);
  // Findings with per-step figures and severity; `hint_for(cause)` fills hints.
  template <typename HintFn>
  std::vector<Finding> finish(HintFn hint_for) const {
    std::vector<Finding> out;
    for (const auto& [key, f] : findings_) {
      Finding done = f;
      complete(done);
      done.hint = hint_for(done.cause);
      out.push_back(std::move(done));
    }
    return out;
  }

 private:
  void complete(Finding& f) const;
  Category category_;
  StepInfo steps_;
  std::map<std::tuple<int, uint32_t, std::string, std::string>, Finding> findings_;
};

}  // namespace syncscope
