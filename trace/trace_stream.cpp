#include "trace/trace_stream.h"

#include <algorithm>

namespace syncscope {

absl::StatusOr<std::unique_ptr<TraceStream>> TraceStream::open(const std::string& path, const ReadOptions& options) {
  absl::StatusOr<std::unique_ptr<FileBytes>> bytes = FileBytes::open(path);
  if (!bytes.ok()) return bytes.status();
  std::unique_ptr<TraceStream> stream(new TraceStream(std::move(*bytes), path, options));
  if (absl::Status status = stream->parser_.begin(); !status.ok()) return status;
  return stream;
}

void TraceStream::hand_out(size_t n, std::vector<Event>* window) {
  std::vector<Event>& pending = parser_.trace().events;
  window->assign(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
  pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
  parser_.erased_front(n);
}

bool TraceStream::next(size_t max_events, std::vector<Event>* window) {
  window->clear();
  max_events = std::max<size_t>(max_events, 1);
  std::vector<Event>& pending = parser_.trace().events;
  while (!records_done_) {
    if (!parser_.next_record()) {
      records_done_ = true;
      parser_.finish();
      break;
    }
    // Read on until a window's worth lies more than kLagNs before the
    // latest start read: those events can no longer be overtaken.
    if (pending.size() < max_events) continue;
    size_t sorted = parser_.sorted_upto();
    if (sorted < pending.size()) {  // the parser gave up merging (a hostile file): sort here
      std::stable_sort(pending.begin(), pending.end(), starts_before);
      parser_.sorted_all();
      sorted = pending.size();
    }
    const uint64_t latest = pending[sorted - 1].start_ns;
    const uint64_t settled_before = latest > kLagNs ? latest - kLagNs : 0;
    size_t settled = static_cast<size_t>(
        std::lower_bound(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(sorted), settled_before,
                         [](const Event& e, uint64_t t) { return e.start_ns < t; }) -
        pending.begin());
    if (settled >= max_events) {
      hand_out(max_events, window);
      return true;
    }
    // More than a window within kLagNs (a dense burst): hand out the older
    // half rather than grow without bound.
    if (pending.size() >= 2 * max_events) {
      hand_out(max_events, window);
      return true;
    }
  }
  if (pending.empty()) return false;
  if (!std::is_sorted(pending.begin(), pending.end(), starts_before)) {
    std::stable_sort(pending.begin(), pending.end(), starts_before);
  }
  hand_out(std::min(pending.size(), max_events), window);
  return true;
}

}  // namespace syncscope
