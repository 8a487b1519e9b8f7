#include "fake_activity.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "fake_memory.h"
#include "fake_streams.h"

namespace fakecuda {
namespace {

std::atomic<const SyncscopeFakeActivitySink*> g_sink{nullptr};
std::atomic<uint32_t> g_next_correlation{1};
thread_local int t_depth = 0;
thread_local uint32_t t_correlation = 0;
thread_local uint32_t t_replay = 0;  // set while a worker runs replayed graph work

}  // namespace

bool activity_on() { return g_sink.load(std::memory_order_acquire) != nullptr; }

ApiScope::ApiScope(const char* name) : name_(name) {
  outer_ = t_depth++ == 0;
  if (!outer_ || !activity_on()) return;
  correlation_ = g_next_correlation.fetch_add(1);
  t_correlation = correlation_;
  start_ = now_ns();
}

ApiScope::~ApiScope() {
  --t_depth;
  if (!outer_) return;
  t_correlation = 0;
  if (correlation_ == 0) return;
  const SyncscopeFakeActivitySink* sink = g_sink.load(std::memory_order_acquire);
  if (sink != nullptr && sink->api != nullptr) sink->api(name_, correlation_, start_, now_ns(), result_);
}

uint32_t current_correlation() { return t_correlation; }

uint32_t stream_id(Stream* stream) {
  static std::mutex* mutex = new std::mutex();
  static auto* ids = new std::unordered_map<Stream*, uint32_t>();
  std::lock_guard<std::mutex> lock(*mutex);
  auto [it, inserted] = ids->emplace(stream, static_cast<uint32_t>(ids->size() + 1));
  return it->second;
}

SyncscopeFakeGpuOp gpu_op(int kind, Stream* stream) {
  SyncscopeFakeGpuOp op{};
  op.kind = kind;
  op.correlation = current_correlation();
  op.stream_id = stream != nullptr && activity_on() ? stream_id(stream) : 0;
  return op;
}

void report_gpu(const SyncscopeFakeGpuOp& op) {
  const SyncscopeFakeActivitySink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || sink->gpu == nullptr) return;
  SyncscopeFakeGpuOp out = op;
  if (t_replay != 0) {
    out.correlation = t_replay;
    out.graph_id = 1;
  }
  if (out.correlation == 0) return;  // enqueued before reporting began
  sink->gpu(&out);
}

std::function<void(uint64_t)> reporting(std::function<void(uint64_t)> action, SyncscopeFakeGpuOp op,
                                        uint64_t duration_ns) {
  if (!activity_on()) return action;
  return [action = std::move(action), op, duration_ns](uint64_t start) {
    if (action) action(start);
    SyncscopeFakeGpuOp done = op;
    done.start_ns = start;
    done.end_ns = start + duration_ns;
    report_gpu(done);
  };
}

std::function<void(uint64_t)> replayed(std::function<void(uint64_t)> action, uint32_t correlation) {
  if (correlation == 0 || !action) return action;
  return [action = std::move(action), correlation](uint64_t start) {
    t_replay = correlation;
    action(start);
    t_replay = 0;
  };
}

int memory_kind(const void* ptr) {
  switch (kind_of(ptr)) {
    case MemKind::kPageable:
      return 1;
    case MemKind::kPinned:
    case MemKind::kRegistered:
      return 2;
    case MemKind::kDevice:
      return 3;
    case MemKind::kManaged:
      return 5;
  }
  return 0;
}

}  // namespace fakecuda

extern "C" void syncscopeFakeCudaSetActivitySink(const SyncscopeFakeActivitySink* sink) {
  fakecuda::g_sink.store(sink, std::memory_order_release);
}

extern "C" void syncscopeFakeCudaRestartCorrelation() { fakecuda::g_next_correlation.store(1); }
