#include "report/trace_dump.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "detectors/finding.h"
#include "sites/site_frames.h"
#include "trace/source_paths.h"
#include "sites/symbolizer.h"
#include "report/dump_gpu.h"
#include "report/terminal_safe.h"
#include "report/text_layout.h"
#include "report/units.h"
#include "trace/api.h"
#include "trace/format.h"
#include "trace/reader.h"

namespace syncscope {
namespace {

using nlohmann::json;

// Frames of an API's stacks whose symbols the JSON lists (as tests/gpu reads them).
constexpr size_t kSymbolFrames = 12;
constexpr size_t kMaxSymbolsPerApi = 64;

std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%" PRIx64, value);
  return buffer;
}

// Seconds since the recording began, signed (a TSC-converted time may land a
// hair before the header's).
std::string seconds(int64_t ns) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%s%" PRId64 ".%06" PRId64, ns < 0 ? "-" : "", (ns < 0 ? -ns : ns) / 1000000000,
                ((ns < 0 ? -ns : ns) % 1000000000) / 1000);
  return buffer;
}

std::string wall_clock(uint64_t realtime_ns) {
  if (realtime_ns == 0) return "unknown";
  time_t t = static_cast<time_t>(realtime_ns / 1000000000);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buffer;
}

// The stream field as recorded: 0 (the legacy default stream, or no stream
// at all for APIs without one; the `ptsz` flag makes it the per-thread
// stream), the two well-known handles by name, else the handle.
std::string stream_label(uint64_t stream) {
  if (stream == kStreamLegacy) return "legacy";
  if (stream == kStreamPerThread) return "per-thread";
  return stream == 0 ? "0" : hex(stream);
}

std::vector<std::string> flag_names(const Event& e) {
  std::vector<std::string> out;
  if (e.flags & kFlagAsync) out.push_back("async");
  if (e.flags & kFlagCapturing) out.push_back("capturing");
  if (e.flags & kFlagError) out.push_back("error=" + std::to_string(e.result));
  if (e.flags & kFlagPerThreadStream) out.push_back("ptsz");
  if (uint8_t unknown = e.flags & 0xf0) out.push_back(hex(unknown));
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

// "H2D/pinned", "D2H/pageable", "?/none": a copy's direction and host memory.
std::string copy_kind(const Event& e) {
  std::string_view direction = direction_name(e.direction), mem = host_mem_name(e.host_mem);
  return std::string(direction == "?" ? "unknown" : direction) + "/" + std::string(mem.empty() ? "none" : mem);
}

// The innermost Python frame of the program's own code on a stack, if any.
struct PythonLine {
  bool known = false;
  std::string file;
  uint32_t line = 0;
  std::string function;
};

// One trace, read, with what every section needs.
class TraceDump {
 public:
  TraceDump(const ProcessTrace& trace, const Segmentation* segmentation, const DumpSections& options)
      : trace_(trace), segmentation_(segmentation), options_(options), symbolizer_(trace) {
    base_ns_ = trace.header.start_monotonic_ns;
    if (base_ns_ == 0 && !trace.events.empty()) base_ns_ = trace.events.front().start_ns;
    for (const Event& e : trace.events) {
      ApiTally& a = apis_[e.api];
      a.count++;
      a.bytes += e.bytes;
      a.host_ns += e.end_ns - e.start_ns;
      if (e.direction != 0) a.copies[copy_kind(e)]++;
      a.streams[e.stream]++;
      a.capturing += (e.flags & kFlagCapturing) != 0;
      a.errors += (e.flags & kFlagError) != 0;
      if (e.stack_id != 0) a.stacks.insert(e.stack_id);
      ThreadTally& t = threads_[e.tid];
      t.events++;
      t.host_ns += e.end_ns - e.start_ns;
      if (e.stack_id != 0) stack_events_[e.stack_id]++;
      last_end_ns_ = std::max(last_end_ns_, e.end_ns);
    }
    for (const auto& [tid, name] : trace.thread_names) threads_[tid];  // named threads without events too
  }

  json to_json();
  void to_text(std::ostream& out);

 private:
  struct ApiTally {
    uint64_t count = 0, bytes = 0, host_ns = 0, capturing = 0, errors = 0;
    std::map<std::string, uint64_t> copies;
    std::map<uint64_t, uint64_t> streams;
    std::set<uint32_t> stacks;
  };
  struct ThreadTally {
    uint64_t events = 0, host_ns = 0;
  };

  int64_t relative(uint64_t ns) const { return static_cast<int64_t>(ns - base_ns_); }
  const PythonLine& python_line(uint32_t stack_id);
  // An event's Python line: its stack's, or for the line watch's events
  // the line they mark (0: the frame returned or yielded).
  static bool line_event(const Event& e) { return e.api == static_cast<uint16_t>(ApiId::syncscope_python_line); }
  PythonLine event_line(const Event& e) {
    if (line_event(e)) {
      const auto code = static_cast<uint32_t>(e.dst);
      return PythonLine{true, code_file(code), static_cast<uint32_t>(e.bytes), code_function(code)};
    }
    return e.stack_id != 0 ? python_line(e.stack_id) : PythonLine{};
  }
  std::set<std::string> stack_symbols(const ApiTally& a);
  std::string thread_name(uint32_t tid) const {
    auto it = trace_.thread_names.find(tid);
    return it == trace_.thread_names.end() ? std::string() : it->second;
  }
  std::string code_file(uint32_t code_id) const {
    auto it = trace_.python_code.find(code_id);
    return it == trace_.python_code.end() ? "?" : it->second.file;
  }
  std::string code_function(uint32_t code_id) const {
    auto it = trace_.python_code.find(code_id);
    return it == trace_.python_code.end() ? "?" : it->second.function;
  }
  std::vector<uint32_t> sorted_stack_ids() const {
    std::set<uint32_t> ids;
    for (const auto& [id, pcs] : trace_.stacks) ids.insert(id);
    for (const auto& [id, frames] : trace_.python_stacks) ids.insert(id);
    return {ids.begin(), ids.end()};
  }
  size_t events_shown() const {
    if (!options_.events) return 0;
    return options_.max_events ? std::min<size_t>(options_.max_events, trace_.events.size()) : trace_.events.size();
  }

  json events_json();
  json stacks_json();
  json modules_json();
  json phases_json(const Segmentation& s);
  void events_text(std::ostream& out);
  void stacks_text(std::ostream& out);
  void phases_text(std::ostream& out, const Segmentation& s);

  const ProcessTrace& trace_;
  const Segmentation* segmentation_;
  const DumpSections& options_;
  Symbolizer symbolizer_;
  uint64_t base_ns_ = 0;
  uint64_t last_end_ns_ = 0;
  std::map<uint16_t, ApiTally> apis_;
  std::map<uint32_t, ThreadTally> threads_;
  std::map<uint32_t, uint64_t> stack_events_;
  std::map<uint32_t, PythonLine> python_lines_;
};

const PythonLine& TraceDump::python_line(uint32_t stack_id) {
  auto [it, fresh] = python_lines_.try_emplace(stack_id);
  if (!fresh) return it->second;
  auto py = trace_.python_stacks.find(stack_id);
  if (py == trace_.python_stacks.end()) return it->second;
  for (const PythonFrame& frame : py->second) {
    auto code = trace_.python_code.find(frame.code_id);
    if (code == trace_.python_code.end() || is_library_python_file(code->second.file)) continue;
    it->second = PythonLine{true, code->second.file, frame.line, code->second.function};
    break;
  }
  return it->second;
}

std::set<std::string> TraceDump::stack_symbols(const ApiTally& a) {
  std::set<std::string> symbols;
  for (uint32_t id : a.stacks) {
    if (symbols.size() >= kMaxSymbolsPerApi) break;
    auto it = trace_.stacks.find(id);
    if (it == trace_.stacks.end()) continue;
    for (size_t i = 0; i < it->second.size() && i < kSymbolFrames; ++i) {
      symbols.insert(symbolizer_.symbolize(it->second[i], i == 0).symbol);
    }
  }
  return symbols;
}

// ---- JSON ----

json TraceDump::to_json() {
  const FileHeader& h = trace_.header;
  json out;
  out["file"] = trace_.file;
  out["version"] = h.version;
  out["pid"] = h.pid;
  out["ppid"] = h.ppid;
  out["start_monotonic_ns"] = h.start_monotonic_ns;
  out["start_realtime_ns"] = h.start_realtime_ns;
  out["event_size"] = h.event_size;
  out["clock"] = (h.flags & kFileClockTsc) ? "tsc" : "monotonic";
  out["argv"] = trace_.info("argv");
  out["cuda_runtime"] = trace_.info("cuda_runtime");
  json info = json::array();
  for (const auto& [key, value] : trace_.process_info) info.push_back({{"key", key}, {"value", value}});
  out["process_info"] = std::move(info);
  out["complete"] = trace_.complete;
  out["truncation"] = trace_.truncation;
  out["events_dropped"] = trace_.events_dropped;
  out["aggregated_launches"] = trace_.aggregated_launches;
  out["launch_runs"] = trace_.launch_runs;
  out["stacks_dropped"] = trace_.stacks_dropped;
  out["counts"] = {{"events", trace_.events.size()},
                   {"stacks", trace_.stacks.size()},
                   {"python_stacks", trace_.python_stacks.size()},
                   {"python_code", trace_.python_code.size()},
                   {"modules", trace_.modules.size()},
                   {"threads", threads_.size()}};
  if (!trace_.events.empty()) {
    out["span_ns"] = {{"first_start", relative(trace_.events.front().start_ns)}, {"last_end", relative(last_end_ns_)}};
  }
  json apis = json::object();
  for (const auto& [id, a] : apis_) {
    json streams = json::object();
    for (const auto& [stream, n] : a.streams) streams[std::to_string(stream)] = n;
    json entry = {{"id", id},
                  {"family", family_name(api_family(id))},
                  {"count", a.count},
                  {"bytes", a.bytes},
                  {"host_ns", a.host_ns},
                  {"copies", a.copies},
                  {"streams", std::move(streams)}};
    if (a.capturing) entry["capturing"] = a.capturing;
    if (a.errors) entry["errors"] = a.errors;
    if (!a.stacks.empty()) entry["stack_symbols"] = stack_symbols(a);
    // Two ids never share a name except `unknown` (ids beyond this build's table).
    std::string name(api_name(id));
    if (apis.contains(name)) name.append("#").append(std::to_string(id));
    apis[name] = std::move(entry);
  }
  out["apis"] = std::move(apis);
  json threads = json::array();
  for (const auto& [tid, t] : threads_) {
    threads.push_back({{"tid", tid}, {"name", thread_name(tid)}, {"events", t.events}, {"host_ns", t.host_ns}});
  }
  out["threads"] = std::move(threads);
  out["gpu"] = gpu_summary_json(trace_);
  if (options_.gpu) out["gpu_records"] = gpu_records_json(trace_, base_ns_, options_.max_gpu);
  if (options_.gpu) out["gpu_windows"] = gpu_windows_json(trace_, base_ns_);
  if (options_.events) out["events"] = events_json();
  if (options_.stacks) {
    out["stacks"] = stacks_json();
    out["modules"] = modules_json();
  }
  if (options_.phases && segmentation_ != nullptr) out["phases"] = phases_json(*segmentation_);
  return out;
}

json TraceDump::events_json() {
  json out = json::array();
  const size_t n = events_shown();
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace_.events[i];
    json ev = {{"start_ns", relative(e.start_ns)},
               {"duration_ns", e.end_ns - e.start_ns},
               {"tid", e.tid},
               {"api", api_name(e.api)},
               {"api_id", e.api},
               {"stream", e.stream},
               {"bytes", e.bytes},
               {"dst", e.dst},
               {"src", e.src},
               {"stack_id", e.stack_id},
               {"device", e.device},
               {"flags", flag_names(e)}};
    if (e.direction != 0) {
      ev["direction"] = direction_name(e.direction);
      ev["host_mem"] = host_mem_name(e.host_mem);
    }
    if (e.flags & kFlagError) ev["result"] = e.result;
    const PythonLine line = event_line(e);
    if (line.known) ev["python"] = {{"file", line.file}, {"line", line.line}, {"function", line.function}};
    out.push_back(std::move(ev));
  }
  return out;
}

json TraceDump::stacks_json() {
  json out = json::array();
  for (uint32_t id : sorted_stack_ids()) {
    json native = json::array();
    if (auto it = trace_.stacks.find(id); it != trace_.stacks.end()) {
      for (size_t i = 0; i < it->second.size(); ++i) {
        Frame f = symbolizer_.symbolize(it->second[i], i == 0);
        native.push_back({{"pc", hex(f.pc)}, {"module", f.module}, {"symbol", f.symbol}, {"offset", f.offset}});
      }
    }
    json python = json::array();
    if (auto it = trace_.python_stacks.find(id); it != trace_.python_stacks.end()) {
      for (const PythonFrame& frame : it->second) {
        python.push_back({{"file", code_file(frame.code_id)},
                          {"line", frame.line},
                          {"function", code_function(frame.code_id)},
                          {"code_id", frame.code_id}});
      }
    }
    auto events = stack_events_.find(id);
    out.push_back({{"id", id},
                   {"events", events == stack_events_.end() ? 0 : events->second},
                   {"native", std::move(native)},
                   {"python", std::move(python)}});
  }
  return out;
}

json TraceDump::modules_json() {
  json out = json::array();
  for (const Module& m : trace_.modules) {
    out.push_back({{"path", m.path}, {"start", hex(m.start)}, {"end", hex(m.end)}, {"bias", hex(m.bias)}});
  }
  return out;
}

// Events per place: warm-up, each phase's steady steps, teardown, and
// steady events in no phase (after a time-based warm-up, when no steps
// were found).
struct PlaceCounts {
  uint64_t warmup = 0, teardown = 0, steady_without_phase = 0;
  std::vector<uint64_t> phase;
};

PlaceCounts count_places(const Segmentation& s, size_t events) {
  PlaceCounts c;
  c.phase.assign(s.phases.size(), 0);
  for (size_t i = 0; i < events && i < s.places.size(); ++i) {
    const EventPlace& p = s.places[i];
    if (p.phase == Phase::kWarmup)
      c.warmup++;
    else if (p.phase == Phase::kTeardown)
      c.teardown++;
    else if (p.phase_index >= 0 && static_cast<size_t>(p.phase_index) < c.phase.size())
      c.phase[p.phase_index]++;
    else
      c.steady_without_phase++;
  }
  return c;
}

json TraceDump::phases_json(const Segmentation& s) {
  PlaceCounts counts = count_places(s, trace_.events.size());
  json phases = json::array();
  for (size_t i = 0; i < s.phases.size(); ++i) {
    const PhaseInfo& p = s.phases[i];
    phases.push_back({{"name", phase_name(p, trace_.strings)},
                      {"source", step_source_name(p.source)},
                      {"steps", p.steps},
                      {"calls_per_step", p.calls_per_step},
                      {"step_ns", p.step_ns},
                      {"median_step_ns", p.median_step_ns},
                      {"start_ns", relative(p.start_ns)},
                      {"end_ns", relative(p.end_ns)},
                      {"interrupted_steps", p.interrupted_steps},
                      {"marker_stack_id", p.marker_stack_id},
                      {"events", counts.phase[i]}});
  }
  const StepInfo& m = s.main;
  return {{"steps_detected", m.detected},
          {"main",
           {{"steps", m.steps},
            {"period_calls", m.period_calls},
            {"step_ns", m.step_ns},
            {"steady_start_ns", relative(m.steady_start_ns)},
            {"steady_end_ns", relative(m.steady_end_ns)}}},
          {"phases", std::move(phases)},
          {"warmup_events", counts.warmup},
          {"steady_events_without_phase", counts.steady_without_phase},
          {"teardown_events", counts.teardown}};
}

// ---- text ----

void TraceDump::to_text(std::ostream& out) {
  const FileHeader& h = trace_.header;
  out << "== " << trace_.file << "\n";
  out << "trace version " << h.version << ", pid " << h.pid << ", ppid " << h.ppid << ", started "
      << wall_clock(h.start_realtime_ns) << ", clock " << ((h.flags & kFileClockTsc) ? "tsc" : "monotonic")
      << ", event size " << h.event_size << "\n";
  if (trace_.complete) {
    out << "complete (clean shutdown)";
  } else {
    out << "INCOMPLETE: " << trace_.truncation;
  }
  out << "; events dropped: " << trace_.events_dropped << ", stacks dropped: " << trace_.stacks_dropped << "\n";
  out << "process:\n";
  for (const auto& [key, value] : trace_.process_info) {
    out << "  " << pad(key, 12) << " " << truncate_columns(value, kScreenColumns) << "\n";
  }
  out << "counts: " << trace_.events.size() << " events, " << trace_.stacks.size() << " native stacks, "
      << trace_.python_stacks.size() << " python stacks, " << trace_.python_code.size() << " python code objects, "
      << trace_.modules.size() << " modules, " << threads_.size() << " threads\n";
  if (trace_.launch_runs > 0) {
    out << "aggregated: " << trace_.aggregated_launches << " of the events are launches put back from "
        << trace_.launch_runs << " runs (times spread over each run)\n";
  }
  if (!trace_.events.empty()) {
    out << "span: +" << seconds(relative(trace_.events.front().start_ns)) << " s to +"
        << seconds(relative(last_end_ns_)) << " s after the recording began\n";
  }

  out << "\n  " << pad("api", 30) << " " << lpad("calls", 7) << " " << lpad("host time", 13) << " " << lpad("bytes", 14)
      << "  copies, streams, errors\n";
  for (const auto& [id, a] : apis_) {
    std::vector<std::string> notes;
    for (const auto& [kind, n] : a.copies) notes.push_back(kind + ":" + std::to_string(n));
    if (a.streams.size() > 1) {
      notes.push_back(std::to_string(a.streams.size()) + " streams");
    } else if (a.streams.size() == 1 && a.streams.begin()->first != 0) {
      notes.push_back("stream " + stream_label(a.streams.begin()->first));
    }
    if (a.capturing) notes.push_back("capturing:" + std::to_string(a.capturing));
    if (a.errors) notes.push_back("errors:" + std::to_string(a.errors));
    std::string line = "  " + pad(std::string(api_name(id)), 30) + " " + lpad(std::to_string(a.count), 7) + " " +
                       lpad(format_duration(a.host_ns), 13) + " " + lpad(a.bytes ? std::to_string(a.bytes) : "", 14) +
                       "  " + join(notes, " ");
    out << line.erase(line.find_last_not_of(' ') + 1) << "\n";
  }
  out << "\nthreads\n";
  for (const auto& [tid, t] : threads_) {
    std::string name = thread_name(tid);
    out << "  tid " << lpad(std::to_string(tid), 8) << "  " << pad(name.empty() ? "(unnamed)" : name, 18) << " "
        << lpad(std::to_string(t.events), 8) << " events, host time " << format_duration(t.host_ns) << "\n";
  }
  out << "\n";
  gpu_summary_text(out, trace_);
  if (options_.phases && segmentation_ != nullptr) phases_text(out, *segmentation_);
  if (options_.stacks) stacks_text(out);
  if (options_.events) events_text(out);
  if (options_.gpu) gpu_records_text(out, trace_, base_ns_, options_.max_gpu);
}

void TraceDump::events_text(std::ostream& out) {
  const size_t n = events_shown();
  out << "\nevents (" << n << " of " << trace_.events.size()
      << ", in time order; time: seconds after the recording began)\n";
  auto row = [&out](const std::string& time, const std::string& tid, const std::string& api, const std::string& stream,
                    const std::string& bytes, const std::string& copy, const std::string& duration,
                    const std::string& flags, const std::string& stack, const std::string& python) {
    std::string line = lpad(time, 10) + " " + lpad(tid, 8) + "  " + pad(api, 30) + " " + pad(stream, 14) + " " +
                       lpad(bytes, 10) + "  " + pad(copy, 13) + " " + lpad(duration, 9) + "  " + pad(flags, 15) + " " +
                       pad(stack, 6) + " " + python;
    out << line.erase(line.find_last_not_of(' ') + 1) << "\n";
  };
  row("time", "tid", "api", "stream", "bytes", "copy", "duration", "flags", "stack", "python (innermost own line)");
  const std::string cwd = trace_.info("cwd");
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace_.events[i];
    std::string python;
    const PythonLine line = event_line(e);
    if (line.known) {
      python = display_source_path(line.file, cwd) + ":" + (line.line != 0 ? std::to_string(line.line) : "return") +
               " " + line.function;
    }
    row(seconds(relative(e.start_ns)), std::to_string(e.tid), std::string(api_name(e.api)), stream_label(e.stream),
        e.bytes && !line_event(e) ? std::to_string(e.bytes) : "", e.direction != 0 ? copy_kind(e) : "",
        format_duration(e.end_ns - e.start_ns), join(flag_names(e), ","),
        e.stack_id ? std::string("#").append(std::to_string(e.stack_id)) : "", python);
  }
}

void TraceDump::stacks_text(std::ostream& out) {
  out << "\nstacks (" << sorted_stack_ids().size() << "; native frames innermost first, then Python frames)\n";
  for (uint32_t id : sorted_stack_ids()) {
    auto events = stack_events_.find(id);
    out << "  #" << id << ": " << (events == stack_events_.end() ? 0 : events->second) << " events\n";
    if (auto it = trace_.stacks.find(id); it != trace_.stacks.end()) {
      for (size_t i = 0; i < it->second.size(); ++i) {
        out << "      " << lpad(std::to_string(i), 2) << " " << symbolizer_.symbolize(it->second[i], i == 0).to_string()
            << "\n";
      }
    }
    if (auto it = trace_.python_stacks.find(id); it != trace_.python_stacks.end()) {
      for (const PythonFrame& frame : it->second) {
        out << "      py " << code_file(frame.code_id) << ":" << frame.line << " " << code_function(frame.code_id)
            << "\n";
      }
    }
  }
  out << "\nmodules (" << trace_.modules.size() << ")\n";
  for (const Module& m : trace_.modules) {
    out << "  " << hex(m.start) << "-" << hex(m.end) << " bias " << hex(m.bias) << "  " << m.path << "\n";
  }
}

void TraceDump::phases_text(std::ostream& out, const Segmentation& s) {
  PlaceCounts counts = count_places(s, trace_.events.size());
  out << "\nphases\n";
  if (s.phases.empty()) {
    out << "  no steps found: " << counts.warmup << " warm-up events (time-based, before +"
        << seconds(relative(s.main.steady_start_ns)) << " s), then " << counts.steady_without_phase
        << " steady events in no phase\n";
    return;
  }
  out << "  warm-up   " << counts.warmup << " events before +" << seconds(relative(s.main.steady_start_ns)) << " s\n";
  for (size_t i = 0; i < s.phases.size(); ++i) {
    const PhaseInfo& p = s.phases[i];
    out << "  " << pad(phase_name(p, trace_.strings), 8) << "  " << p.steps << " steps (" << step_source_name(p.source)
        << "), " << p.calls_per_step << " calls per step, step " << format_duration(static_cast<uint64_t>(p.step_ns))
        << " mean";
    if (p.median_step_ns > 0) out << " / " << format_duration(static_cast<uint64_t>(p.median_step_ns)) << " median";
    out << ", +" << seconds(relative(p.start_ns)) << " s to +" << seconds(relative(p.end_ns)) << " s, "
        << counts.phase[i] << " events";
    if (p.interrupted_steps) out << ", " << p.interrupted_steps << " interrupted steps";
    if (p.marker_stack_id) out << ", marker stack #" << p.marker_stack_id;
    out << "\n";
  }
  if (counts.steady_without_phase) out << "  " << counts.steady_without_phase << " steady events in no phase\n";
  out << "  teardown  " << counts.teardown << " events from +" << seconds(relative(s.main.steady_end_ns)) << " s\n";
}

}  // namespace

nlohmann::json trace_dump_json(const ProcessTrace& trace, const Segmentation* segmentation,
                               const DumpSections& sections) {
  return TraceDump(trace, segmentation, sections).to_json();
}

void trace_dump_text(std::ostream& out, const ProcessTrace& trace, const Segmentation* segmentation,
                     const DumpSections& sections) {
  TraceDump(trace, segmentation, sections).to_text(out);
}

}  // namespace syncscope
