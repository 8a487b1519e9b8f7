// Writes the trace reader's generated seeds (tests/fuzz/corpus/trace_reader/)
// with the recorder's own TraceWriter, so they are valid by construction
// and hold every record type: events, aggregated launches (sequence and
// runs), native and Python stacks, modules with build-ids, threads,
// process info, drops, GPU records with kernel names and a sampling
// window, and the end record. One trace is complete; the other, in
// version 1's form without an end record, is what a killed process leaves.
// Not part of the fuzz run: built with the fuzzers, run by hand when the
// format changes:  build/fuzz/bin/make_seed_traces tests/fuzz/corpus/trace_reader
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "trace/api.h"
#include "trace/writer.h"

namespace {

using namespace syncscope;

FileHeader header(uint32_t version) {
  FileHeader h{};
  h.version = version;
  h.pid = 4242;
  h.ppid = 1;
  h.start_monotonic_ns = 1'000'000;
  h.start_realtime_ns = 1'700'000'000'000'000'000;
  h.flags = kFileClockTsc;
  return h;
}

Event event(ApiId api, uint64_t start, uint64_t end, uint32_t stack, uint32_t tid = 7) {
  Event e{};
  e.api = static_cast<uint16_t>(api);
  e.start_ns = start;
  e.end_ns = end;
  e.stack_id = stack;
  e.tid = tid;
  e.device = 0;
  return e;
}

GpuRecord gpu(GpuKind kind, uint64_t start, uint64_t end, uint32_t correlation, uint32_t tid = 0) {
  GpuRecord r{};
  r.kind = static_cast<uint8_t>(kind);
  r.start_ns = start;
  r.end_ns = end;
  r.correlation_id = correlation;
  r.stream_id = kind == GpuKind::kRuntimeApi ? 0 : 7;
  r.tid = tid;
  r.device = 0;
  return r;
}

bool write(const std::string& path, uint32_t version, bool complete) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::string error;
  TraceWriter w;
  if (fd < 0 || !w.open_fd(fd, header(version), &error)) {
    std::fprintf(stderr, "make_seed_traces: %s: %s\n", path.c_str(), error.empty() ? "cannot create" : error.c_str());
    return false;
  }
  // The writer always stamps its own version; a version 1 seed is patched after.
  w.add_process_info("argv", "python3 train.py --steps 3");
  w.add_process_info("exe", "/usr/bin/python3.11");
  w.add_thread(7, "python3");
  w.add_thread(8, "pt_autograd_0");
  w.add_module(0x400000, 0x480000, 0x400000, "/usr/bin/python3.11");
  const unsigned char build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  w.add_module_build_id(0x400000, build_id, sizeof(build_id));
  w.add_module(0x7f0000000000, 0x7f0000100000, 0x7f0000000000, "/usr/lib/libcudart.so.13");
  const uint64_t pcs[] = {0x7f0000001234, 0x401000, 0x402000};
  w.add_stack(1, pcs, 3);
  w.add_python_code(1, 10, "train.py", "main");
  const uint64_t frames[] = {(uint64_t{1} << 32) | 42, (uint64_t{1} << 32) | 50};
  w.add_python_stack(1, frames, 2);
  std::vector<Event> events;
  for (uint64_t step = 0; step < 3; ++step) {
    const uint64_t t = 2'000'000 + step * 1'000'000;
    Event copy = event(ApiId::cudaMemcpyAsync, t, t + 50'000, 1);
    copy.direction = static_cast<uint8_t>(Direction::kDeviceToHost);
    copy.host_mem = static_cast<uint8_t>(HostMem::kPageable);
    copy.bytes = 4;
    events.push_back(copy);
    events.push_back(event(ApiId::cudaStreamSynchronize, t + 50'000, t + 90'000, 1));
    events.push_back(event(ApiId::cudaMalloc, t + 100'000, t + 110'000, 1, 8));
    events.push_back(event(ApiId::cudaFree, t + 120'000, t + 130'000, 1, 8));
  }
  w.add_events(events.data(), events.size());
  if (version >= 2) {
    Event shapes[2] = {event(ApiId::cudaLaunchKernel, 0, 0, 0, 0), event(ApiId::cudaLaunchKernel, 0, 0, 0, 0)};
    shapes[0].dst = 0x1000;
    shapes[1].dst = 0x2000;
    w.add_launch_sequence(1, shapes, 2);
    const LaunchRun runs[] = {{2'200'000, 2'210'000, 2'215'000, 10'000, 7, 1},
                              {3'200'000, 3'210'000, 3'215'000, 10'000, 7, 1}};
    w.add_launch_runs(runs, 2);
  }
  w.add_string(1, "void gemm<float>(float const*, float*)");
  GpuRecord kernel = gpu(GpuKind::kKernel, 2'300'000, 2'400'000, 11);
  kernel.name_id = 1;
  GpuRecord copy = gpu(GpuKind::kMemcpy, 2'010'000, 2'040'000, 12);
  copy.bytes = 4;
  copy.copy_kind = static_cast<uint8_t>(GpuCopyKind::kDtoH);
  const GpuRecord records[] = {kernel, copy, gpu(GpuKind::kRuntimeApi, 2'000'100, 2'000'200, 12, 7),
                               gpu(GpuKind::kSync, 2'060'000, 2'080'000, 0),
                               gpu(GpuKind::kWindow, 1'000'000, 9'000'000, 0)};
  w.add_gpu_records(records, sizeof(records) / sizeof(records[0]));
  w.add_drops(7, 3);
  if (complete) w.add_end(EndPayload{6'000'000, events.size(), 3, 0, 0, 0, 0});
  if (!w.flush(&error)) {
    std::fprintf(stderr, "make_seed_traces: %s: %s\n", path.c_str(), error.c_str());
    return false;
  }
  w.close();
  if (version != kTraceVersion) {
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::pwrite(fd, &version, sizeof(version), offsetof(FileHeader, version)) != sizeof(version))
      return false;
    ::close(fd);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seed_traces DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = write(dir + "/generated_v2_complete.sstrace", 2, true);
  ok = write(dir + "/generated_v1_killed.sstrace", 1, false) && ok;
  return ok ? 0 : 1;
}
