#include <algorithm>
#include <set>
#include <unordered_map>

#include "detectors/detectors.h"
#include "detectors/site_aggregator.h"
#include "trace/api.h"

namespace syncscope {

namespace {
constexpr double kUnmeasuredSeverityPerCall = 1e-6;
}  // namespace

std::vector<Finding> detect_default_stream(const std::vector<Event>& events, const Segmentation& segmentation) {
  SiteAggregator sites(Category::kDefaultStream, segmentation);
  // Streams that run kernels (steady state), and blocking streams the program created.
  std::set<uint64_t> compute_streams;
  std::set<uint64_t> blocking_streams;
  std::set<uint64_t> busy_blocking;  // blocking streams with work in steady state
  auto steady = [&](const Event& e) { return segmentation.places[segmentation.index_of(e)].phase == Phase::kSteady; };
  for (const Event& e : events) {
    ApiFamily f = api_family(e.api);
    if (f == ApiFamily::kStreamCreate && !(e.flags & kFlagError) && (e.bytes & 1u) == 0)
      blocking_streams.insert(e.stream);
    if (!steady(e) || (e.flags & kFlagCapturing)) continue;
    if (f == ApiFamily::kLaunch) compute_streams.insert(e.stream);
  }
  for (const Event& e : events) {
    if (steady(e) && blocking_streams.count(e.stream) && api_family(e.api) != ApiFamily::kStreamDestroy) {
      busy_blocking.insert(e.stream);
    }
  }
  const bool legacy_serialises = !busy_blocking.empty();
  for (const Event& e : events) {
    if (e.flags & (kFlagCapturing | kFlagError)) continue;
    ApiFamily f = api_family(e.api);
    const std::string_view api = api_name(e.api);
    const bool legacy = (e.stream == 0 && !(e.flags & kFlagPerThreadStream)) || e.stream == kStreamLegacy;
    if (f == ApiFamily::kCopy && (e.flags & kFlagAsync) &&
        e.direction == static_cast<uint8_t>(Direction::kHostToDevice) &&
        e.host_mem != static_cast<uint8_t>(HostMem::kPageable) && compute_streams.count(e.stream)) {
      sites.add(e, std::string(api), std::string(api) + "(H2D) on the compute stream", Cause::kCopyOnComputeStream, 0,
                e.bytes);
    } else if (legacy && legacy_serialises &&
               (f == ApiFamily::kLaunch || f == ApiFamily::kCopy || f == ApiFamily::kMemset)) {
      sites.add(e, std::string(api), std::string(api) + " on the legacy default stream", Cause::kLegacyStream, 0,
                bytes_of(e), calls_of(e));
    }
  }
  std::vector<Finding> findings = sites.finish([](Cause cause) {
    return std::string(cause == Cause::kCopyOnComputeStream
                           ? "host-to-device copies queued behind the kernels on one stream cannot overlap them: "
                             "copy on a separate stream (torch.cuda.Stream) and order with events (wait_stream / "
                             "record_stream)"
                           : "work on the legacy default stream waits for, and blocks, every blocking stream: create "
                             "streams with cudaStreamNonBlocking or compile with --default-stream per-thread");
  });
  // No host time is lost directly, and the GPU time lost is not measured:
  // rank by how often it happens per step, a copy per step as a host wait
  // of a millionth of the step, so that measured waits of any size come
  // first. (At 0.2% a copy, nanoGPT's 8 batch copies per step outranked
  // its eval .item() and checkpoint, which the host measurably waited for.)
  for (Finding& f : findings)
    f.severity = kUnmeasuredSeverityPerCall * (f.per_step > 0 ? std::min(f.per_step, 100.0) : 1) *
                 (f.phase == Phase::kSteady ? 1 : 0.1);
  // With a GPU timeline the cost is measured: the GPU time of the site's
  // copies that no kernel on another stream ran alongside (serialised), as
  // a share of the step (of the steady run without steps).
  const double span = static_cast<double>(segmentation.main.steady_end_ns > segmentation.main.steady_start_ns
                                              ? segmentation.main.steady_end_ns - segmentation.main.steady_start_ns
                                              : 1);
  for (Finding& f : findings) {
    if (!f.gpu_measured || f.gpu_copy_ns == 0) continue;
    const double serialized = static_cast<double>(f.gpu_copy_ns - std::min(f.gpu_copy_overlap_ns, f.gpu_copy_ns));
    const PhaseInfo* phase = f.phase_index >= 0 && static_cast<size_t>(f.phase_index) < segmentation.phases.size()
                                 ? &segmentation.phases[f.phase_index]
                                 : nullptr;
    const double steps =
        phase && f.phase == Phase::kSteady ? static_cast<double>(segmentation.gpu_steps(f.phase_index)) : 0;
    const double step_ns = phase ? phase->step_ns : 0;
    if (steps > 0 && step_ns > 0) {
      f.gpu_serialized_ns_per_step = serialized / steps;
      f.severity = f.gpu_serialized_ns_per_step / step_ns;
    } else {
      f.severity = serialized / span;
    }
    f.severity = std::max(f.severity, f.gpu_idle_share);
    if (f.phase != Phase::kSteady) f.severity *= 0.1;
  }

  return findings;
}

}  // namespace syncscope
