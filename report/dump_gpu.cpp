#include "report/dump_gpu.h"

#include <algorithm>
#include <map>
#include <string>

#include "report/text_layout.h"
#include "report/units.h"
#include "trace/api.h"
#include "trace/process_info_keys.h"

namespace syncscope {
namespace {

using json = nlohmann::json;

struct KindTally {
  uint64_t records = 0, joined = 0, ns = 0, bytes = 0;
};

struct GpuTally {
  std::map<std::string, KindTally> kinds;                       // by gpu_kind_name
  std::map<std::string, std::map<std::string, uint64_t>> apis;  // joined event's API -> kind -> records
  std::map<uint32_t, std::map<std::string, uint64_t>> streams;  // CUPTI stream id -> kind -> records
  uint64_t work_union_ns = 0;                                   // kernels, copies and memsets, overlaps once
};

GpuTally tally(const ProcessTrace& trace) {
  GpuTally t;
  uint64_t covered_to = 0;
  for (const GpuActivity& a : trace.gpu_activity) {  // sorted by start
    std::string kind(gpu_kind_name(a.kind));
    KindTally& k = t.kinds[kind];
    k.records++;
    k.ns += a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0;
    k.bytes += a.bytes;
    if (a.event_index >= 0) {
      k.joined++;
      t.apis[std::string(api_name(trace.events[static_cast<size_t>(a.event_index)].api))][kind]++;
    }
    if (!gpu_kind_is_work(a.kind)) continue;
    t.streams[a.stream_id][kind]++;
    uint64_t from = std::max(a.start_ns, covered_to);
    if (a.end_ns > from) {
      t.work_union_ns += a.end_ns - from;
      covered_to = a.end_ns;
    }
  }
  return t;
}

std::string copy_text(const GpuActivity& a) {
  return std::string(gpu_copy_kind_name(a.copy_kind)) + " " + std::string(gpu_memory_kind_name(a.src_kind)) + "->" +
         std::string(gpu_memory_kind_name(a.dst_kind));
}

int64_t relative(uint64_t ns, uint64_t base_ns) { return static_cast<int64_t>(ns) - static_cast<int64_t>(base_ns); }

}  // namespace

json gpu_summary_json(const ProcessTrace& trace) {
  GpuTally t = tally(trace);
  json kinds = json::object();
  for (const auto& [name, k] : t.kinds) {
    kinds[name] = {{"records", k.records}, {"joined", k.joined}, {"ns", k.ns}, {"bytes", k.bytes}};
  }
  json streams = json::object();
  for (const auto& [id, by_kind] : t.streams) streams[std::to_string(id)] = by_kind;
  return {{"timeline", trace.info(info_key::kGpuTimeline)},
          {"sampling", trace.info(info_key::kGpuTimelineSampling)},
          {"windows", trace.gpu_windows.size()},
          {"api_records", trace.gpu_api.size()},
          {"kinds", std::move(kinds)},
          {"joined_by_api", t.apis},
          {"streams", std::move(streams)},
          {"work_union_ns", t.work_union_ns}};
}

json gpu_records_json(const ProcessTrace& trace, uint64_t base_ns, size_t max_records) {
  json out = json::array();
  const size_t n = max_records ? std::min(max_records, trace.gpu_activity.size()) : trace.gpu_activity.size();
  for (size_t i = 0; i < n; ++i) {
    const GpuActivity& a = trace.gpu_activity[i];
    json r = {{"kind", gpu_kind_name(a.kind)},
              {"start_ns", relative(a.start_ns, base_ns)},
              {"duration_ns", a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0},
              {"stream_id", a.stream_id},
              {"correlation_id", a.correlation_id},
              {"device", a.device},
              {"bytes", a.bytes},
              {"event_index", a.event_index}};
    if (a.kind == static_cast<uint8_t>(GpuKind::kKernel)) r["name"] = trace.gpu_name(a);
    if (a.kind == static_cast<uint8_t>(GpuKind::kMemcpy)) r["copy"] = copy_text(a);
    if (a.graph_id) r["graph_id"] = a.graph_id;
    if (a.event_index >= 0) r["api"] = api_name(trace.events[static_cast<size_t>(a.event_index)].api);
    out.push_back(std::move(r));
  }
  return out;
}

json gpu_windows_json(const ProcessTrace& trace, uint64_t base_ns) {
  json out = json::array();
  for (const auto& [start, end] : trace.gpu_windows) {
    out.push_back({{"start_ns", relative(start, base_ns)}, {"end_ns", relative(end, base_ns)}});
  }
  return out;
}

void gpu_summary_text(std::ostream& out, const ProcessTrace& trace) {
  std::string state = trace.info(info_key::kGpuTimeline);
  out << "gpu timeline: " << (state.empty() ? "not recorded" : state) << "\n";
  const std::string sampling = trace.info(info_key::kGpuTimelineSampling);
  if (!sampling.empty()) {
    out << "  sampling: " << sampling << (sampling == "full" ? "" : " ms") << ", " << trace.gpu_windows.size()
        << " windows recorded\n";
  }
  if (trace.gpu_activity.empty()) return;
  GpuTally t = tally(trace);
  for (const auto& [name, k] : t.kinds) {
    out << "  " << pad(name, 8) << lpad(std::to_string(k.records), 9) << " records, " << k.joined
        << " joined to a call, " << format_duration(k.ns) << " in all";
    if (k.bytes) out << ", " << format_bytes(k.bytes);
    out << "\n";
  }
  out << "  busy (kernels, copies, memsets; overlaps once): " << format_duration(t.work_union_ns) << "; "
      << trace.gpu_api.size() << " API records\n";
  for (const auto& [api, by_kind] : t.apis) {
    out << "  joined to " << api << ":";
    for (const auto& [kind, n] : by_kind) out << " " << n << " " << kind;
    out << "\n";
  }
  for (const auto& [id, by_kind] : t.streams) {
    out << "  stream " << id << ":";
    for (const auto& [kind, n] : by_kind) out << " " << n << " " << kind;
    out << "\n";
  }
}

void gpu_records_text(std::ostream& out, const ProcessTrace& trace, uint64_t base_ns, size_t max_records) {
  const size_t n = max_records ? std::min(max_records, trace.gpu_activity.size()) : trace.gpu_activity.size();
  out << "\ngpu records (" << n << " of " << trace.gpu_activity.size() << ", by start):\n";
  for (size_t i = 0; i < n; ++i) {
    const GpuActivity& a = trace.gpu_activity[i];
    out << "  +" << relative(a.start_ns, base_ns) << " ns " << pad(std::string(gpu_kind_name(a.kind)), 7) << " "
        << lpad(format_duration(a.end_ns > a.start_ns ? a.end_ns - a.start_ns : 0), 9) << " stream " << a.stream_id
        << " corr " << a.correlation_id;
    if (a.kind == static_cast<uint8_t>(GpuKind::kKernel)) out << " " << trace.gpu_name(a);
    if (a.kind == static_cast<uint8_t>(GpuKind::kMemcpy)) out << " " << copy_text(a) << " " << format_bytes(a.bytes);
    if (a.event_index >= 0) {
      out << " <- #" << a.event_index << " " << api_name(trace.events[static_cast<size_t>(a.event_index)].api);
    } else {
      out << " (not joined)";
    }
    out << "\n";
  }
}

}  // namespace syncscope
