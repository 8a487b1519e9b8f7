// Prints one JSON object per trace file in a directory: per-API counts,
// bytes, host-memory kinds and directions of copies, launches per stream,
// and the symbol names on the stacks of each API. The GPU checks
// (tests/gpu/check_foundation.py) assert on it; handy for debugging too.
//   trace_stats DIR
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "report/symbolizer.h"
#include "trace/api.h"
#include "trace/reader.h"

using namespace syncscope;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_stats DIR\n");
    return 2;
  }
  auto files = list_trace_files(argv[1]);
  if (!files.ok()) {
    std::fprintf(stderr, "trace_stats: %s\n", std::string(files.status().message()).c_str());
    return 2;
  }
  for (const std::string& file : *files) {
    auto trace = read_trace_file(file);
    if (!trace.ok()) {
      std::fprintf(stderr, "trace_stats: %s\n", std::string(trace.status().message()).c_str());
      continue;
    }
    Symbolizer symbolizer(*trace);
    nlohmann::json out;
    out["file"] = file;
    out["pid"] = trace->header.pid;
    out["argv"] = trace->info("argv");
    out["cuda_runtime"] = trace->info("cuda_runtime");
    out["complete"] = trace->complete;
    out["events_dropped"] = trace->events_dropped;
    out["python_stacks"] = trace->python_stacks.size();
    out["python_code"] = trace->python_code.size();
    std::map<std::string, nlohmann::json> apis;
    std::map<std::string, std::set<std::string>> symbols;
    for (const Event& e : trace->events) {
      std::string name(api_name(e.api));
      nlohmann::json& a = apis[name];
      if (a.is_null()) a = {{"count", 0}, {"bytes", 0}, {"host_ns", 0}, {"copies", nlohmann::json::object()},
                            {"streams", nlohmann::json::object()}};
      a["count"] = a.value("count", 0) + 1;
      a["bytes"] = a.value("bytes", uint64_t{0}) + e.bytes;
      a["host_ns"] = a.value("host_ns", uint64_t{0}) + (e.end_ns - e.start_ns);
      if (e.direction != 0) {
        std::string_view direction = direction_name(e.direction), mem = host_mem_name(e.host_mem);
        std::string key = std::string(direction == "?" ? "unknown" : direction) + "/" +
                          std::string(mem.empty() ? "none" : mem);
        a["copies"][key] = a["copies"].value(key, 0) + 1;
      }
      if (e.flags & kFlagCapturing) a["capturing"] = a.value("capturing", 0) + 1;
      if (e.flags & kFlagError) a["errors"] = a.value("errors", 0) + 1;
      a["streams"][std::to_string(e.stream)] = a["streams"].value(std::to_string(e.stream), 0) + 1;
      if (e.stack_id != 0 && symbols[name].size() < 64) {
        auto it = trace->stacks.find(e.stack_id);
        if (it != trace->stacks.end()) {
          for (size_t i = 0; i < it->second.size() && i < 12; ++i) {
            symbols[name].insert(symbolizer.symbolize(it->second[i], i == 0).symbol);
          }
        }
      }
    }
    for (auto& [name, a] : apis) {
      if (symbols.count(name)) a["stack_symbols"] = symbols[name];
      out["apis"][name] = a;
    }
    std::printf("%s\n", out.dump().c_str());
  }
  return 0;
}
