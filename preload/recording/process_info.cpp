#include "preload/recording/process_info.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "preload/core/clock.h"
#include "preload/core/real_function.h"
#include "preload/recording/stack_capture.h"
#include "trace/process_info_keys.h"
#include "trace/writer.h"

namespace syncscope::preload {
namespace {

std::vector<std::pair<std::string, std::string>>& session_info() {
  static auto* info = new std::vector<std::pair<std::string, std::string>>();  // never destroyed: used at exit
  return *info;
}

std::string read_small_file(const char* path) {
  std::string out;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0 && out.size() < (1u << 20)) out.append(buffer, n);
  close(fd);
  return out;
}

std::string read_link(const char* path) {
  char buffer[4096];
  ssize_t n = readlink(path, buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

// The fake runtime used in CI exports this marker; a report must never let a
// simulated run pass for a real GPU.
bool runtime_is_simulated() {
  return find_real_function(RealLibrary::kCudaRuntime, "syncscopeFakeCudaRuntime") != nullptr;
}

}  // namespace

void set_session_info(std::vector<std::pair<std::string, std::string>> info) { session_info() = std::move(info); }

void write_process_info(TraceWriter& writer) {
  std::string cmdline = read_small_file("/proc/self/cmdline");
  // NUL-separated arguments: kept as they are in "argv0", "argv1", ... and
  // joined with spaces in "argv" for display.
  std::string joined;
  size_t start = 0;
  int index = 0;
  while (start < cmdline.size()) {
    size_t end = cmdline.find('\0', start);
    if (end == std::string::npos) end = cmdline.size();
    std::string arg = cmdline.substr(start, end - start);
    writer.add_process_info(info_key::argv_key(index++), arg);
    if (!joined.empty()) joined += ' ';
    joined += arg;
    start = end + 1;
  }
  writer.add_process_info(info_key::kArgv, joined);
  writer.add_process_info(info_key::kExe, read_link("/proc/self/exe"));
  writer.add_process_info(info_key::kCwd, read_link("/proc/self/cwd"));
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) writer.add_process_info(info_key::kHostname, host);
  // The variable's name is the key.
  for (const char* key : {info_key::kRank, info_key::kLocalRank, info_key::kWorldSize}) {
    if (const char* value = std::getenv(key)) writer.add_process_info(key, value);
  }
  writer.add_process_info(info_key::kCudaRuntime,
                          runtime_is_simulated() ? info_key::kCudaRuntimeSimulated : info_key::kCudaRuntimeReal);
  writer.add_process_info(info_key::kUnwinder, stack_unwinder_name());
  writer.add_process_info(info_key::kClock, clock_uses_tsc() ? "tsc" : "monotonic");
  writer.add_process_info(info_key::kSyncscopeVersion, SYNCSCOPE_VERSION);
  for (const auto& [key, value] : session_info()) writer.add_process_info(key, value);
}

}  // namespace syncscope::preload
