// Reading a trace file back (docs/trace-format.md), whole: the records are
// parsed one at a time (trace/trace_parser.h) from a window of the file
// that slides forward (trace/byte_source.h), so the file's bytes are never
// held whole beside its events. The memory is the events': no input can
// make it more than a small multiple of the file's own size, except through
// aggregated launches: each 40-byte run puts back every launch of its
// sequence, so their memory follows the launches the file claims.
#include "trace/reader.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "trace/byte_source.h"
#include "trace/trace_parser.h"

namespace syncscope {

uint64_t ProcessTrace::calls() const {
  uint64_t n = 0;
  for (const Event& e : events) n += calls_of(e);
  return n;
}

std::string ProcessTrace::info(const std::string& key) const {
  for (const auto& [k, v] : process_info) {
    if (k == key) return v;
  }
  return {};
}

std::string_view ProcessTrace::gpu_name(const GpuRecord& record) const {
  if (record.kind != static_cast<uint8_t>(GpuKind::kKernel)) return {};
  auto it = strings.find(record.name_id);
  return it == strings.end() ? std::string_view() : std::string_view(it->second);
}

const Module* ProcessTrace::module_for(uint64_t pc) const {
  auto it = std::upper_bound(modules.begin(), modules.end(), pc,
                             [](uint64_t value, const Module& m) { return value < m.start; });
  if (it == modules.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

void add_gpu_record(ProcessTrace& trace, const GpuRecord& record) {
  if (gpu_kind_is_api(record.kind)) {
    trace.gpu_api.push_back(record);
    return;
  }
  if (record.kind == static_cast<uint8_t>(GpuKind::kWindow)) {
    if (record.end_ns > record.start_ns) trace.gpu_windows.emplace_back(record.start_ns, record.end_ns);
    return;
  }
  GpuActivity a;
  static_cast<GpuRecord&>(a) = record;
  trace.gpu_activity.push_back(a);
}

namespace {

absl::StatusOr<ProcessTrace> parse_whole(ByteSource& bytes, const std::string& path, const ReadOptions& options) {
  TraceParser parser(bytes, path, options);
  if (absl::Status status = parser.begin(); !status.ok()) return status;
  return parser.take_whole();
}

}  // namespace

absl::StatusOr<ProcessTrace> read_trace_file(const std::string& path, const ReadOptions& options) {
  absl::StatusOr<std::unique_ptr<FileBytes>> bytes = FileBytes::open(path);
  if (!bytes.ok()) return bytes.status();
  return parse_whole(**bytes, path, options);
}

absl::StatusOr<ProcessTrace> read_trace_bytes(std::string_view bytes, const std::string& name,
                                              const ReadOptions& options) {
  MemoryBytes memory(bytes);
  return parse_whole(memory, name, options);
}

absl::StatusOr<std::vector<std::string>> list_trace_files(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read trace directory ", dir, ": ", ec.message()));
  const std::string_view suffix(kTraceFileSuffix);
  std::vector<std::string> files;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (name.size() > suffix.size() && std::string_view(name).substr(name.size() - suffix.size()) == suffix &&
        it->is_regular_file(type_ec)) {
      files.push_back(it->path().string());
    }
  }
  if (ec) return absl::UnavailableError(absl::StrCat("cannot read trace directory ", dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace syncscope
