// Groups the events a detector flags into one Finding per call site (stack,
// or the waiting Python line for frameless threads), phase, cause and API
// sequence, and fills the per-step figures of the phase it recurs in.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "detectors/finding.h"
#include "segmentation/segmentation.h"
#include "trace/event.h"

namespace syncscope {

class SiteAggregator {
 public:
  SiteAggregator(Category category, const Segmentation& segmentation) : category_(category), seg_(segmentation) {}

  // One flagged occurrence: `anchor` (an element of the segmented events)
  // decides site, thread, phase and step; `blocked_ns` is the host time it
  // cost; `calls` the calls it stands for (a folded run's launches).
  void add(const Event& anchor, const std::string& api, const std::string& sequence, Cause cause, uint64_t blocked_ns,
           uint64_t bytes, uint64_t calls = 1);
  // Findings with per-step figures and severity; `hint_for(cause)` fills hints.
  template <typename HintFn>
  std::vector<Finding> finish(HintFn hint_for) const {
    std::vector<Finding> out;
    for (const auto& [key, site] : sites_) {
      Finding done = site.finding;
      complete(done);
      done.hint = hint_for(done.cause);
      out.push_back(std::move(done));
    }
    return out;
  }

 private:
  struct Site {
    Finding finding;  // its step_counts: every step it occurred in, whatever the phase, until complete()
  };
  void complete(Finding& f) const;
  Category category_;
  const Segmentation& seg_;
  // The cause by name: findings come out in the order they always had.
  std::map<std::tuple<int, int, uint32_t, uint32_t, std::string, std::string_view>, Site> sites_;
};

}  // namespace syncscope
