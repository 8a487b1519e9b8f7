// NVTX ranges (docs/nvtx.md): libsyncscope.so is an NVTX injection library.
// `syncscope run` sets NVTX_INJECTION64_PATH to it; the NVTX loader compiled
// into every NVTX user (torch.cuda.nvtx, emit_nvtx, nvtx3::scoped_range, the
// user's own C++) dlopens it at the first NVTX call (the handle LD_PRELOAD
// already holds) and calls InitializeInjectionNvtx2, which fills the core
// function table with the handlers below. A range becomes one event
// (syncscope_nvtx_range: start = push, end = pop, dst = its name's string
// id, bytes = its depth) when it is popped; a name is interned once and
// written as a kString record (trace/format.h) by the collector. Registered
// strings, wide strings and start/end ranges are not taken.
//
// Not a CUDA hot path: an NVTX push is the user's, once per phase or layer.
// Interning takes a mutex; pushing and popping touch only the thread's own
// range stack.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preload/core/clock.h"
#include "preload/core/in_hook.h"
#include "preload/gpu_timeline/nvtx_ranges.h"
#include "preload/recording/recorder.h"
#include "preload/recording/thread_state.h"
#include "trace/api.h"
#include "trace/event.h"
#include "trace/writer.h"

namespace syncscope::preload {
namespace {

struct Names {
  std::mutex mutex;
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::pair<uint32_t, std::string>> unwritten;  // drained by the collector
};

// Never destroyed: ranges may be popped by threads still running at exit.
Names& names() {
  static Names* n = new Names();
  return *n;
}

uint32_t intern(const char* text) {
  if (text == nullptr) text = "";
  Names& n = names();
  std::lock_guard<std::mutex> lock(n.mutex);
  auto [it, inserted] = n.ids.emplace(text, kNvtxStringIdBase + static_cast<uint32_t>(n.ids.size()));
  if (inserted) n.unwritten.emplace_back(it->second, it->first);
  return it->second;
}

// A thread's open ranges. Deeper than kMaxDepth: counted, not recorded.
constexpr int kMaxDepth = 64;
struct OpenRange {
  uint64_t start_ticks;
  uint32_t name_id;
};
__thread OpenRange tls_ranges[kMaxDepth];
__thread int tls_depth = 0;

int push(const char* message) {
  const int depth = tls_depth++;
  if (depth < kMaxDepth) tls_ranges[depth] = {now_ticks(), recording() ? intern(message) : 0};
  return depth;
}

int pop() {
  if (tls_depth == 0) return -1;  // NVTX's own answer to an unmatched pop
  const int depth = --tls_depth;
  if (depth >= kMaxDepth || tls_ranges[depth].name_id == 0 || !recording() || tls_in_hook) return depth;
  ThreadState* thread = current_thread_state();
  if (thread == nullptr) return depth;
  InHookScope in_hook;
  Event e{};
  e.api = static_cast<uint16_t>(ApiId::syncscope_nvtx_range);
  e.start_ns = tls_ranges[depth].start_ticks;
  e.end_ns = now_ticks();
  e.tid = thread->tid;
  e.dst = tls_ranges[depth].name_id;
  e.bytes = static_cast<uint64_t>(depth);
  e.device = -1;
  thread->ring.push(e);
  return depth;
}

const char* ascii_message(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII) return "(unnamed range)";
  return attributes->message.ascii;
}

int NVTX_API range_push_a(const char* message) { return push(message); }
int NVTX_API range_push_ex(const nvtxEventAttributes_t* attributes) { return push(ascii_message(attributes)); }
int NVTX_API range_pop() { return pop(); }
int NVTX_API domain_range_push_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* attributes) {
  return push(ascii_message(attributes));
}
int NVTX_API domain_range_pop(nvtxDomainHandle_t) { return pop(); }

template <typename F>
void install(NvtxFunctionTable table, unsigned int size, unsigned int id, F handler) {
  if (table != nullptr && id < size && table[id] != nullptr)
    *table[id] = reinterpret_cast<NvtxFunctionPointer>(handler);
}

}  // namespace

void nvtx_drain(TraceWriter& writer) {
  std::vector<std::pair<uint32_t, std::string>> fresh;
  {
    Names& n = names();
    std::lock_guard<std::mutex> lock(n.mutex);
    fresh.swap(n.unwritten);
  }
  for (const auto& [id, text] : fresh) writer.add_string(id, text);
}

void nvtx_forget_written() {
  // A new session (attach, fork) writes a new file: every name again.
  Names& n = names();
  std::lock_guard<std::mutex> lock(n.mutex);
  n.unwritten.clear();
  for (const auto& [text, id] : n.ids) n.unwritten.emplace_back(id, text);
}

}  // namespace syncscope::preload

// The NVTX loader's entry point (nvtx3/nvtxDetail/nvtxInit.h): non-zero
// means this tool took the calls.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace syncscope::preload;
  if (get_table == nullptr) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  NvtxFunctionTable core = nullptr, core2 = nullptr;
  unsigned int core_size = 0, core2_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) return 0;
  install(core, core_size, NVTX_CBID_CORE_RangePushA, range_push_a);
  install(core, core_size, NVTX_CBID_CORE_RangePushEx, range_push_ex);
  install(core, core_size, NVTX_CBID_CORE_RangePop, range_pop);
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) {
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push_ex);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, domain_range_pop);
  }
  return 1;
}
