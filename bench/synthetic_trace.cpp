// Writes a synthetic trace of a training loop with as many calls as asked
// (issue 15: measuring the reporter on traces of 10^7..10^8 events without
// recording for hours). The loop: per step, 4 micro-batches of an upload and
// 96 launches (12 identical layers), an optimizer of 24 launches, the loss
// read back every 10 steps (a hidden sync with a stack), a checkpoint every
// 100 steps. Launches go through the recorder's own aggregator unless
// --full, so the file is what `syncscope run` would write.
//   synthetic_trace CALLS OUT_DIR [--full]
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "preload/recording/launch_aggregator.h"
#include "trace/api.h"
#include "trace/format.h"
#include "trace/writer.h"

using namespace syncscope;

namespace {

struct Generator {
  TraceWriter writer;
  preload::LaunchAggregator aggregator;
  preload::LaunchAggregator::Output out;
  uint64_t now = 1000000;
  uint64_t calls = 0;

  explicit Generator(bool aggregate) : aggregator(aggregate) {}

  void call(ApiId api, uint64_t what, uint64_t duration_ns, uint32_t stack = 0, uint8_t direction = 0,
            uint8_t host_mem = 0, uint64_t bytes = 0) {
    Event e{};
    e.start_ns = now;
    e.end_ns = now + duration_ns;
    e.api = static_cast<uint16_t>(api);
    e.dst = what;
    e.stream = 0x5000;
    e.tid = 4242;
    e.stack_id = stack;
    e.direction = direction;
    e.host_mem = host_mem;
    e.bytes = bytes;
    e.device = 0;
    if (api_family(e.api) == ApiFamily::kLaunch) e.flags |= kFlagAsync;
    now += duration_ns + 500;
    ++calls;
    aggregator.add(e, &out);
    if (out.events.size() + out.run_launches >= 65536) write();
  }

  void write() {
    for (uint32_t id : out.new_sequences) {
      size_t count = 0;
      const Event* shapes = aggregator.sequence(id, &count);
      writer.add_launch_sequence(id, shapes, static_cast<uint32_t>(count));
    }
    writer.add_events(out.events.data(), out.events.size());
    writer.add_launch_runs(out.runs.data(), out.runs.size());
    out.clear();
    std::string error;
    if (writer.buffered_bytes() > (16u << 20) && !writer.flush(&error)) {
      std::fprintf(stderr, "synthetic_trace: %s\n", error.c_str());
      std::exit(1);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: synthetic_trace CALLS OUT_DIR [--full]\n");
    return 2;
  }
  const uint64_t target = std::strtoull(argv[1], nullptr, 10);
  const bool full = argc > 3 && std::strcmp(argv[3], "--full") == 0;
  Generator g(!full);
  FileHeader header{};
  header.pid = 4242;
  header.ppid = 1;
  header.start_monotonic_ns = 1000000;
  header.start_realtime_ns = 1700000000ull * 1000000000ull;
  std::string error;
  if (!g.writer.open(argv[2], header, &error)) {
    std::fprintf(stderr, "synthetic_trace: %s\n", error.c_str());
    return 1;
  }
  g.writer.add_process_info("argv", "python3 synthetic_train.py");
  g.writer.add_process_info("trace.detail", full ? "full" : "aggregated");
  g.writer.add_thread(4242, "python3");
  // Two stacks: the read-back and the checkpoint's copy (no modules: unsymbolized).
  const uint64_t read_back_pcs[] = {0x401000, 0x402000};
  const uint64_t checkpoint_pcs[] = {0x403000, 0x404000};
  g.writer.add_stack(1, read_back_pcs, 2);
  g.writer.add_stack(2, checkpoint_pcs, 2);
  for (uint64_t step = 1; g.calls < target; ++step) {
    for (int micro = 0; micro < 4; ++micro) {
      g.call(ApiId::cudaMemcpyAsync, 0x7000, 3000, 0, static_cast<uint8_t>(Direction::kHostToDevice),
             static_cast<uint8_t>(HostMem::kPinned), 1 << 20);
      for (int layer = 0; layer < 12; ++layer) {
        for (uint64_t k = 0; k < 8; ++k) g.call(ApiId::__cudaLaunchKernel, 0x100 + k, 2500);
      }
    }
    for (int group = 0; group < 12; ++group) {
      g.call(ApiId::__cudaLaunchKernel, 0x200, 2500);
      g.call(ApiId::__cudaLaunchKernel, 0x201, 2500);
    }
    if (step % 10 == 0) {
      g.call(ApiId::cudaMemcpyAsync, 0x7100, 3000, 1, static_cast<uint8_t>(Direction::kDeviceToHost),
             static_cast<uint8_t>(HostMem::kPinned), 4);
      g.call(ApiId::cudaStreamSynchronize, 0, 400000, 1);
    }
    if (step % 100 == 0) {
      g.call(ApiId::cudaMemcpy, 0x7200, 800000, 2, static_cast<uint8_t>(Direction::kDeviceToHost),
             static_cast<uint8_t>(HostMem::kPageable), 1 << 24);
    }
  }
  g.aggregator.close_all(&g.out);
  g.write();
  g.writer.add_end(EndPayload{g.now, g.calls, 0, 0});
  if (!g.writer.flush(&error)) {
    std::fprintf(stderr, "synthetic_trace: %s\n", error.c_str());
    return 1;
  }
  g.writer.close();
  struct stat st {};
  stat(g.writer.path().c_str(), &st);
  std::printf("synthetic_trace: %llu calls in %s (%lld bytes, %s)\n", static_cast<unsigned long long>(g.calls),
              g.writer.path().c_str(), static_cast<long long>(st.st_size), full ? "full detail" : "aggregated");
  return 0;
}
