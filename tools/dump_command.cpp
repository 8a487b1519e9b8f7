#include "tools/dump_command.h"

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "report/terminal_safe.h"
#include "report/trace_dump.h"
#include "tools/report_options.h"
#include "tools/subcommand.h"
#include "trace/format.h"
#include "trace/reader.h"

namespace syncscope {
namespace {

using nlohmann::json;

// The trace files a path names: itself, or the traces of a directory.
bool list_paths(const std::string& path, std::vector<std::string>* files, size_t* without_cuda) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    if (!std::filesystem::exists(path, ec)) {
      spdlog::error("no such trace file or directory: {}", path);
      return false;
    }
    files->push_back(path);
    return true;
  }
  auto listed = list_trace_files(path);
  if (!listed.ok()) {
    spdlog::error("{}", std::string(listed.status().message()));
    return false;
  }
  if (listed->empty()) {
    spdlog::error("no syncscope traces (*{}) in {}", kTraceFileSuffix, path);
    return false;
  }
  *files = std::move(*listed);
  std::ifstream in(path + "/" + kProcessesWithoutCudaFile);
  for (std::string line; std::getline(in, line);) *without_cuda += !line.empty();
  return true;
}

}  // namespace

int dump_command(const DumpOptions& options, std::ostream& out) {
  std::vector<std::string> files;
  size_t without_cuda = 0;
  if (!list_paths(options.path, &files, &without_cuda)) return 1;
  int status = 0;
  json doc = {{"dump_version", kDumpJsonVersion}, {"traces", json::array()}, {"errors", json::array()}};
  bool first = true;
  for (const std::string& file : files) {
    auto trace = read_trace_file(file);
    if (!trace.ok()) {
      std::string why(trace.status().message());
      spdlog::error("{}", why);
      doc["errors"].push_back({{"file", file}, {"error", why}});
      status = 1;
      continue;
    }
    if (!trace->complete) spdlog::warn("{}: incomplete trace: {}", file, trace->truncation);
    std::optional<Segmentation> segmentation;
    if (options.phases) segmentation = segment_read_trace(*trace, options.steps);
    const Segmentation* phases = segmentation ? &*segmentation : nullptr;
    if (options.json) {
      doc["traces"].push_back(trace_dump_json(*trace, phases, options));
    } else {
      if (!first) out << "\n";
      first = false;
      std::ostringstream text;  // strings from the trace may hold terminal controls
      trace_dump_text(text, *trace, phases, options);
      out << terminal_safe(text.str(), false);
    }
  }
  if (options.json) {
    doc["processes_without_cuda"] = without_cuda;
    out << doc.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (without_cuda) {
    out << "\n"
        << without_cuda << " process(es) loaded the recorder but never called CUDA (" << kProcessesWithoutCudaFile
        << ")\n";
  }
  out.flush();
  return status;
}

int dump_command(const DumpOptions& options) { return dump_command(options, std::cout); }

void add_dump_command(CLI::App& app, SubcommandContext& context) {
  auto dump = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump",
      "Print what trace files hold: header, counts, threads, GPU timeline; events, GPU records, stacks, phases");
  cmd->add_option("path", dump->path, "A trace file (*.sstrace) or a trace directory")->required();
  CLI::Option* events =
      cmd->add_option("--events", dump->max_events, "List the events in time order (at most N per trace)")
          ->expected(0, 1);
  CLI::Option* gpu =
      cmd->add_option("--gpu", dump->max_gpu, "List the GPU timeline's records by start (at most N per trace)")
          ->expected(0, 1);
  cmd->add_flag("--stacks", dump->stacks, "Print the interned stacks, symbolised, and the loaded modules");
  cmd->add_flag("--phases", dump->phases, "Print the segmentation: phases, steps, events per phase");
  cmd->add_flag("--json", dump->json, "One JSON document instead of text");
  add_step_options(cmd, &dump->steps);
  cmd->callback([dump, events, gpu, &context] {
    dump->events = events->count() > 0;
    dump->gpu = gpu->count() > 0;
    context.exit_status = dump_command(*dump);
  });
}

}  // namespace syncscope
