#include "report/perfetto_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "report/frame_folding.h"
#include "report/site_text.h"
#include "report/text_layout.h"
#include "trace/api.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

using json = nlohmann::json;

// The steps' tracks beside the real threads, one per phase from this tid
// on: kernel tids stay below 2^22 (pid_max), so these never collide.
constexpr int64_t kStepsTid = int64_t{1} << 30;
// Processes: a pid already taken (ranks of several hosts) gets one from
// here; a process's GPU gets its pid plus kGpuPidOffset.
constexpr int64_t kSparePidBase = int64_t{1} << 23;
constexpr int64_t kGpuPidOffset = int64_t{1} << 24;
constexpr int kFindingFrames = 8;  // native frames in a finding's arguments
// Kernel names are templates hundreds of characters long: the track shows
// the elided name cut to this, the arguments the whole (up to a bound).
constexpr size_t kKernelNameColumns = 80;
constexpr size_t kKernelArgChars = 4096;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

enum class ItemKind : uint8_t { kCall, kGpu, kStep, kWarmup, kTeardown, kFinding };

// One timeline event before it is written: sorted and cut cheaply, rendered
// only when kept.
struct Item {
  uint64_t ns;
  uint32_t process;
  ItemKind kind;
  uint32_t occurrence;  // kFinding: into Finding::occurrences
  size_t index;         // into events, gpu_activity, step_figures or findings
};

using StreamKey = std::tuple<int, uint32_t, uint32_t>;  // device, context, CUPTI stream

struct ProcessIds {
  int64_t pid = 0, gpu_pid = 0;
  std::map<StreamKey, int64_t> streams;  // -> tid on the GPU process
};

StreamKey stream_key(const GpuActivity& a) { return {a.device, a.context_id, a.stream_id}; }

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string stream_text(uint64_t stream, uint8_t flags) {
  if (stream == 0) return flags & kFlagPerThreadStream ? "0 (per-thread default)" : "0 (legacy default)";
  if (stream == kStreamLegacy) return "legacy default";
  if (stream == kStreamPerThread) return "per-thread default";
  return hex(stream);
}

bool shows_stream(const Event& e) {
  switch (api_family(e.api)) {
    case ApiFamily::kLaunch:
    case ApiFamily::kGraphLaunch:
    case ApiFamily::kCopy:
    case ApiFamily::kMemset:
    case ApiFamily::kEventRecord:
    case ApiFamily::kStreamWait:
    case ApiFamily::kHostFunc:
      return true;
    default:
      return e.stream != 0;
  }
}

// Where the main phase's steps begin and end. Warm-up and teardown share
// its track: ending and starting there, they never overlap a step.
std::pair<uint64_t, uint64_t> main_steps(const Analysis& analysis) {
  uint64_t first = analysis.steps.steady_start_ns, last = analysis.steps.steady_end_ns;
  for (const StepFigures& s : analysis.step_figures) {
    if (s.span.phase_index != 0) continue;
    first = std::min(first, s.span.start_ns);
    last = std::max(last, s.span.end_ns);
  }
  return {first, last};
}

class Writer {
 public:
  Writer(const Report& report, const PerfettoOptions& options) : report_(report), options_(options) {}
  std::string render();

 private:
  double us(uint64_t ns) const { return ns > origin_ ? static_cast<double>(ns - origin_) / 1e3 : 0.0; }
  json complete(const char* cat, const std::string& name, int64_t pid, int64_t tid, uint64_t start, uint64_t end,
                json args) const {
    return {{"ph", "X"},
            {"cat", cat},
            {"name", name},
            {"pid", pid},
            {"tid", tid},
            {"ts", us(start)},
            {"dur", end > start ? static_cast<double>(end - start) / 1e3 : 0.0},
            {"args", std::move(args)}};
  }
  void assign_ids();
  void collect();
  void metadata(std::vector<json>& out) const;
  json call_event(size_t process, const Event& e) const;
  json gpu_event(size_t process, const GpuActivity& a);
  json step_event(size_t process, const StepFigures& s) const;
  json finding_args(size_t process, size_t finding) const;
  json render_item(const Item& item);

  const Report& report_;
  PerfettoOptions options_;
  uint64_t origin_ = 0;  // the earliest call or GPU work of any process: time 0
  std::vector<ProcessIds> ids_;
  std::vector<Item> items_;
  std::vector<std::unordered_map<uint32_t, std::pair<std::string, std::string>>> kernel_names_;  // short, full
  std::map<std::pair<size_t, size_t>, json> finding_args_;
};

void Writer::assign_ids() {
  std::set<int64_t> used;
  bool first = true;
  for (size_t i = 0; i < report_.processes.size(); ++i) {
    const ProcessTrace& t = *report_.processes[i].trace;
    ProcessIds ids;
    ids.pid = t.header.pid;
    if (!used.insert(ids.pid).second) {
      ids.pid = kSparePidBase + static_cast<int64_t>(i);
      used.insert(ids.pid);
    }
    ids.gpu_pid = ids.pid + kGpuPidOffset;
    for (const GpuActivity& a : t.gpu_activity) {
      if (gpu_kind_is_work(a.kind)) ids.streams.emplace(stream_key(a), 0);
    }
    int64_t tid = 0;
    for (auto& [key, value] : ids.streams) value = ++tid;
    ids_.push_back(std::move(ids));
    // Time 0: the earliest call or GPU work of any process (one clock per host).
    const EventSpan& span = report_.processes[i].span;
    for (uint64_t ns : {span.any ? span.start_ns : 0,
                        t.gpu_activity.empty() ? 0 : t.gpu_activity.front().start_ns}) {
      if (ns == 0) continue;
      origin_ = first ? ns : std::min(origin_, ns);
      first = false;
    }
  }
  kernel_names_.resize(report_.processes.size());
}

void Writer::collect() {
  for (size_t p = 0; p < report_.processes.size(); ++p) {
    const ProcessReport& process = report_.processes[p];
    const ProcessTrace& t = *process.trace;
    const auto process_index = static_cast<uint32_t>(p);
    // A trace read in windows keeps no calls to draw: its steps (the first
    // WindowedAnalysis::kMaxStepFigures) and findings are drawn; `report
    // --between` pictures a stretch whole.
    // The line watch's events (a dozen a step, without a duration) mark
    // where statements begin for the what-if; as slices they would bury
    // the calls.
    for (size_t i = 0; i < t.events.size(); ++i) {
      if (t.events[i].api == static_cast<uint16_t>(ApiId::syncscope_python_line)) continue;
      items_.push_back({t.events[i].start_ns, process_index, ItemKind::kCall, 0, i});
    }
    for (size_t i = 0; i < t.gpu_activity.size(); ++i) {
      const GpuActivity& a = t.gpu_activity[i];
      if (gpu_kind_is_work(a.kind) && a.end_ns >= a.start_ns)
        items_.push_back({a.start_ns, process_index, ItemKind::kGpu, 0, i});
    }
    const Analysis& analysis = process.analysis;
    for (size_t i = 0; i < analysis.step_figures.size(); ++i) {
      items_.push_back({analysis.step_figures[i].span.start_ns, process_index, ItemKind::kStep, 0, i});
    }
    if (analysis.steps.detected && analysis.steps.steps > 0 && process.span.any) {
      items_.push_back({process.span.start_ns, process_index, ItemKind::kWarmup, 0, 0});
      items_.push_back({main_steps(analysis).second, process_index, ItemKind::kTeardown, 0, 0});
    }
    for (size_t f = 0; f < process.findings.size(); ++f) {
      const std::vector<FindingOccurrence>& occurrences = process.findings[f].finding.occurrences;
      for (size_t o = 0; o < occurrences.size(); ++o) {
        items_.push_back({occurrences[o].start_ns, process_index, ItemKind::kFinding, static_cast<uint32_t>(o), f});
      }
    }
  }
  // Stable: a step's window and its first call keep their order.
  std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.ns < b.ns; });
}

json meta(const char* name, int64_t pid, int64_t tid, json args) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

void Writer::metadata(std::vector<json>& out) const {
  for (size_t p = 0; p < report_.processes.size(); ++p) {
    const ProcessReport& process = report_.processes[p];
    const ProcessTrace& t = *process.trace;
    const ProcessIds& ids = ids_[p];
    std::string command = t.info(info_key::kArgv);
    if (command.empty()) command = t.info(info_key::kExe);
    const bool simulated = t.info(info_key::kCudaRuntime) == info_key::kCudaRuntimeSimulated;
    const std::string windows =
        process.windows == 0 ? ""
                             : " (read in " + std::to_string(process.windows) +
                                     " windows: calls not drawn; report --between START_NS,END_NS draws a stretch)";
    out.push_back(meta("process_name", ids.pid, 0,
                       {{"name", process.label() + ": " + truncate_columns(command, 100) + windows}}));
    out.push_back(meta("process_sort_index", ids.pid, 0, {{"sort_index", 2 * p}}));
    for (size_t i = 0; i < process.analysis.phases.size(); ++i) {
      const int64_t tid = kStepsTid + static_cast<int64_t>(i);
      out.push_back(meta("thread_name", ids.pid, tid, {{"name", "steps: " + process.analysis.phases[i].name}}));
      out.push_back(meta("thread_sort_index", ids.pid, tid, {{"sort_index", -999 + static_cast<int>(i)}}));
    }
    for (uint32_t tid : process.threads) {
      auto named = t.thread_names.find(tid);
      std::string name = named != t.thread_names.end() ? named->second : "";
      if (tid == t.header.pid) name = name.empty() ? "main thread" : name + " (main thread)";
      if (name.empty()) name = "thread " + std::to_string(tid);
      out.push_back(meta("thread_name", ids.pid, tid, {{"name", name + " [" + std::to_string(tid) + "]"}}));
    }
    if (ids.streams.empty()) continue;
    out.push_back(meta("process_name", ids.gpu_pid, 0,
                       {{"name", std::string(simulated ? "GPU (SIMULATED) of " : "GPU of ") + process.label()}}));
    out.push_back(meta("process_sort_index", ids.gpu_pid, 0, {{"sort_index", 2 * p + 1}}));
    // A stream's cudaStream_t, when a call on it was joined.
    std::map<StreamKey, uint64_t> handles;
    std::set<int> devices;
    for (const GpuActivity& a : t.gpu_activity) {
      if (!gpu_kind_is_work(a.kind)) continue;
      devices.insert(a.device);
      if (a.stream != GpuActivity::kNoStream) handles.emplace(stream_key(a), a.stream);
    }
    for (const auto& [key, tid] : ids.streams) {
      std::string name = "stream " + std::to_string(std::get<2>(key));
      auto handle = handles.find(key);
      if (handle != handles.end()) name += " (" + stream_text(handle->second, 0) + ")";
      if (devices.size() > 1) name = "device " + std::to_string(std::get<0>(key)) + " " + name;
      out.push_back(meta("thread_name", ids.gpu_pid, tid, {{"name", name}}));
      out.push_back(meta("thread_sort_index", ids.gpu_pid, tid, {{"sort_index", tid}}));
    }
  }
}

json Writer::call_event(size_t process, const Event& e) const {
  const ApiFamily family = api_family(e.api);
  json args = json::object();
  if (bytes_of(e) != 0 && family != ApiFamily::kStreamCreate) args["bytes"] = e.bytes;  // stream creation: flags
  if (shows_stream(e)) args["stream"] = stream_text(e.stream, e.flags);
  if (e.direction != 0) args["copy"] = std::string(direction_name(e.direction));
  if (e.host_mem != 0) args["host_memory"] = std::string(host_mem_name(e.host_mem));
  if (e.flags & kFlagAsync) args["async"] = true;
  if (e.flags & kFlagCapturing) args["capturing"] = true;
  if (e.flags & kFlagError) args["error"] = e.result;
  // A run of aggregated launches folded into one slice (the reporter's
  // view of a long trace), or one launch put back from a run.
  if (e.flags & kFlagFolded) {
    args["launches"] = e.bytes;
    args["host_time_ns"] = e.src;
    args["time"] = "a run of aggregated launches (--detail full records each)";
  } else if (e.flags & kFlagAggregated) {
    args["time"] = "spread over its run (aggregated; --detail full records each)";
  }
  if (e.device >= 0) args["device"] = e.device;
  switch (family) {
    case ApiFamily::kAlloc:
    case ApiFamily::kFree:
    case ApiFamily::kHostAlloc:
    case ApiFamily::kHostFree:
    case ApiFamily::kHostRegister:
    case ApiFamily::kHostUnregister:
      if (e.dst != 0) args["address"] = hex(e.dst);
      break;
    default:
      break;
  }
  std::string name(api_name(e.api));
  if (e.flags & kFlagFolded) name += " ×" + std::to_string(e.bytes);
  return complete(std::string(family_name(family)).c_str(), name, ids_[process].pid, e.tid, e.start_ns, e.end_ns,
                  std::move(args));
}

json Writer::gpu_event(size_t process, const GpuActivity& a) {
  const ProcessTrace& t = *report_.processes[process].trace;
  json args = json::object();
  std::string name;
  switch (static_cast<GpuKind>(a.kind)) {
    case GpuKind::kKernel: {
      auto [it, added] = kernel_names_[process].try_emplace(a.name_id);
      if (added) {
        std::string full = demangle(std::string(t.gpu_name(a)));
        if (full.empty()) full = "kernel";
        it->second = {truncate_columns(elide_symbol(full), kKernelNameColumns),
                      full.size() > kKernelArgChars ? full.substr(0, kKernelArgChars) + "…" : full};
      }
      name = it->second.first;
      args["kernel"] = it->second.second;
      break;
    }
    case GpuKind::kMemcpy:
      name = "memcpy " + std::string(gpu_copy_kind_name(a.copy_kind));
      args["bytes"] = a.bytes;
      args["copy"] = std::string(gpu_copy_kind_name(a.copy_kind));
      args["src"] = std::string(gpu_memory_kind_name(a.src_kind));
      args["dst"] = std::string(gpu_memory_kind_name(a.dst_kind));
      if (a.flags & kGpuFlagAsync) args["async"] = true;
      break;
    default:  // memset: gpu_kind_is_work() lets nothing else through
      name = "memset";
      args["bytes"] = a.bytes;
      args["memory"] = std::string(gpu_memory_kind_name(a.src_kind));
      break;
  }
  if (a.stream != GpuActivity::kNoStream) args["stream"] = stream_text(a.stream, 0);
  args["cupti_stream"] = a.stream_id;
  args["device"] = a.device;
  args["correlation"] = a.correlation_id;
  if (a.graph_id != 0) args["graph"] = a.graph_id;
  if (a.event_index >= 0 && static_cast<size_t>(a.event_index) < t.events.size()) {
    args["call"] = std::string(api_name(t.events[static_cast<size_t>(a.event_index)].api));
  }
  const ProcessIds& ids = ids_[process];
  return complete(std::string(gpu_kind_name(a.kind)).c_str(), name, ids.gpu_pid, ids.streams.at(stream_key(a)),
                  a.start_ns, a.end_ns, std::move(args));
}

json Writer::step_event(size_t process, const StepFigures& s) const {
  const Analysis& analysis = report_.processes[process].analysis;
  const auto phase = static_cast<size_t>(s.span.phase_index);
  const std::string phase_name = phase < analysis.phases.size() ? analysis.phases[phase].name : "phase";
  json args = {{"phase", phase_name},
               {"step", s.span.step},
               {"host_blocked_us", static_cast<double>(s.host_blocked_ns) / 1e3}};
  if (analysis.gpu_timeline && s.span.gpu_timed) {
    const uint64_t span = s.span.end_ns - s.span.start_ns;
    args["gpu_busy_us"] = static_cast<double>(s.gpu_busy_ns) / 1e3;
    args["gpu_busy_share"] = span ? static_cast<double>(s.gpu_busy_ns) / static_cast<double>(span) : 0.0;
    json idle = json::object();
    for (size_t c = 0; c < kGpuIdleCauses; ++c) {
      idle[gpu_idle_cause_name(static_cast<GpuIdleCause>(c))] = static_cast<double>(s.gpu_idle_by_cause[c]) / 1e3;
    }
    args["gpu_idle_us_by_cause"] = std::move(idle);
  }
  return complete("step", phase_name + " step " + std::to_string(s.span.step), ids_[process].pid,
                  kStepsTid + s.span.phase_index, s.span.start_ns, s.span.end_ns, std::move(args));
}

json Writer::finding_args(size_t process, size_t index) const {
  const ProcessReport& p = report_.processes[process];
  const ReportedFinding& r = p.findings[index];
  const Finding& f = r.finding;
  const PhaseInfo* phase = finding_phase(p, f);
  json args = {{"category", category_name(f.category)},
               {"phase", phase_name(f.phase)},
               {"api", f.api_sequence},
               {"cause", cause_name(f.cause)},
               {"count", f.count},
               {"host_blocked_us", static_cast<double>(f.host_blocked_ns) / 1e3},
               {"where", sync_location(r.site, p.trace->info(info_key::kCwd))},
               {"operation", operation_name(r.operation)},
               {"native", native_lines(r.site, kFindingFrames)},
               {"hint", f.hint}};
  if (phase != nullptr) args["phase_name"] = phase->name;
  if (!sync_text(r.site).empty()) args["source"] = sync_text(r.site);
  if (r.site.has_sync) args["function"] = r.site.sync.function;
  else if (r.site.has_user && r.site.user.python) args["function"] = r.site.user.function;
  const std::string from = reached_from(r.site, p.trace->info(info_key::kCwd));
  if (!from.empty()) args["reached_from"] = from;
  if (f.per_step > 0) {
    args["per_step"] = f.per_step;
    args["host_blocked_us_per_step"] = f.blocked_ns_per_step / 1e3;
    args["steps_with"] = f.steps_with;
  }
  if (f.gpu_measured) args["gpu_idle_us"] = static_cast<double>(f.gpu_idle_ns) / 1e3;
  if (f.gpu_measured && f.gpu_copy_ns > 0) {
    args["gpu_copy_overlap_share"] = static_cast<double>(f.gpu_copy_overlap_ns) / static_cast<double>(f.gpu_copy_ns);
  }
  if (r.suppressed_by >= 0) args["suppressed_by"] = report_.policy.suppressions[r.suppressed_by].text;
  if (r.known) args["in_baseline"] = true;
  return args;
}

json Writer::render_item(const Item& item) {
  const ProcessReport& p = report_.processes[item.process];
  const ProcessTrace& t = *p.trace;
  const int64_t pid = ids_[item.process].pid;
  switch (item.kind) {
    case ItemKind::kCall:
      return call_event(item.process, t.events[item.index]);
    case ItemKind::kGpu:
      return gpu_event(item.process, t.gpu_activity[item.index]);
    case ItemKind::kStep:
      return step_event(item.process, p.analysis.step_figures[item.index]);
    case ItemKind::kWarmup:
      return complete("phase", "warm-up", pid, kStepsTid, item.ns, main_steps(p.analysis).first, json::object());
    case ItemKind::kTeardown: {
      const uint64_t end = std::max(item.ns, p.span.end_ns);
      return complete("phase", "teardown", pid, kStepsTid, item.ns, end, json::object());
    }
    case ItemKind::kFinding:
      break;
  }
  const ReportedFinding& r = p.findings[item.index];
  auto [args, added] = finding_args_.try_emplace({item.process, item.index});
  if (added) args->second = finding_args(item.process, item.index);
  json event_args = args->second;
  std::string occurrence = std::to_string(item.occurrence + 1) + " of " + std::to_string(r.finding.count);
  if (r.finding.count > r.finding.occurrences.size()) {
    occurrence += " (the first " + std::to_string(r.finding.occurrences.size()) + " are marked)";
  }
  event_args["occurrence"] = occurrence;
  return {
      {"ph", "i"},
      {"s", "p"},
      {"cat", "finding"},
      {"name", std::string(category_name(r.finding.category)) + " " + sync_location(r.site, t.info(info_key::kCwd))},
      {"pid", pid},
      {"tid", r.finding.tid},  // process-scoped: the tid only says which thread called
      {"ts", us(item.ns)},
      {"args", std::move(event_args)}};
}

std::string Writer::render() {
  assign_ids();
  collect();
  json other = {{"generator", "syncscope " SYNCSCOPE_VERSION}, {"time_origin_ns", origin_}, {"events", items_.size()}};
  std::string cut_note;
  uint64_t cut_ns = 0;
  if (items_.size() > options_.max_events) {
    cut_ns = options_.max_events > 0 ? items_[options_.max_events - 1].ns : origin_;
    cut_note = "only the first " + std::to_string(options_.max_events) + " of " + std::to_string(items_.size()) +
               " events are written (up to " + std::to_string(us(cut_ns) / 1e6) +
               " s after the start); the rest of the run is cut";
    items_.resize(options_.max_events);
    other["cut"] = cut_note;
  }
  other["events_written"] = items_.size();
  std::vector<json> head;
  metadata(head);
  std::string out = "{\"traceEvents\":[\n";
  out.reserve(items_.size() * 200);
  bool first = true;
  auto append = [&](const json& event) {
    if (!first) out += ",\n";
    first = false;
    out += dump(event);
  };
  for (const json& m : head) append(m);
  for (const Item& item : items_) append(render_item(item));
  if (!cut_note.empty()) {
    append({{"ph", "i"},
            {"s", "g"},
            {"cat", "syncscope"},
            {"name", "trace cut here"},
            {"pid", 0},
            {"tid", 0},
            {"ts", us(cut_ns)},
            {"args", {{"note", cut_note}}}});
  }
  out += "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + dump(other) + "}\n";
  return out;
}

}  // namespace

std::string perfetto_trace(const Report& report, const PerfettoOptions& options) {
  return Writer(report, options).render();
}

}  // namespace syncscope
