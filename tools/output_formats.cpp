#include "tools/output_formats.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "report/json_report.h"

namespace syncscope {

bool parse_output_format(const std::string& spec, OutputFormat* out, std::string* error) {
  size_t eq = spec.find('=');
  out->format = spec.substr(0, eq);
  out->file = eq == std::string::npos ? "" : spec.substr(eq + 1);
  if (out->format != "text" && out->format != "json") {
    *error = "unknown format '" + out->format + "' (text, json)";
    return false;
  }
  if (eq != std::string::npos && out->file.empty()) {
    *error = "empty file name in --format " + spec;
    return false;
  }
  return true;
}

bool write_file_atomically(const std::string& path, const std::string& content, std::string* error) {
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      *error = "cannot write " + temporary + ": " + std::strerror(errno);
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

bool write_outputs(const std::vector<ProcessTrace>& traces, const std::vector<OutputFormat>& formats,
                   const TextReportOptions& options) {
  bool ok = true;
  for (const OutputFormat& f : formats) {
    std::ostringstream rendered;
    TextReportOptions text_options = options;
    text_options.color = f.file.empty() && isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
    if (f.format == "json") rendered << findings_json(traces, options.steps).dump(2) << "\n";
    else render_text_report(traces, text_options, rendered);
    if (f.file.empty()) {
      std::cout << rendered.str();
      std::cout.flush();
      continue;
    }
    std::string error;
    if (!write_file_atomically(f.file, rendered.str(), &error)) {
      spdlog::error("{}", error);
      ok = false;
    } else {
      spdlog::info("{} report written to {}", f.format, f.file);
    }
  }
  return ok;
}

}  // namespace syncscope
