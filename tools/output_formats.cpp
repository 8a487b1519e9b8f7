#include "tools/output_formats.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "report/github_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/terminal_safe.h"
#include "report/junit_report.h"
#include "report/perfetto_report.h"
#include "report/sarif_report.h"
#include "trace/format.h"

namespace syncscope {

bool parse_output_format(const std::string& spec, OutputFormat* out, std::string* error) {
  size_t eq = spec.find('=');
  out->format = spec.substr(0, eq);
  out->file = eq == std::string::npos ? "" : spec.substr(eq + 1);
  static const char* kFormats[] = {"text", "json", "sarif", "junit", "github", "perfetto", "html"};
  if (std::find(std::begin(kFormats), std::end(kFormats), out->format) == std::end(kFormats)) {
    *error = "unknown format '" + out->format + "' (text, json, sarif, junit, github, perfetto, html)";
    return false;
  }
  if (eq != std::string::npos && out->file.empty()) {
    *error = "empty file name in --format " + spec;
    return false;
  }
  // A report written over a recording would destroy it (and `report` reads
  // every *.sstrace of the directory): never a report file of that name.
  const std::string suffix = kTraceFileSuffix;
  if (out->file.size() >= suffix.size() &&
      out->file.compare(out->file.size() - suffix.size(), suffix.size(), suffix) == 0) {
    *error = "--format " + spec + " names a trace file (*" + suffix + "): the report would overwrite a recording";
    return false;
  }
  return true;
}

bool write_file_atomically(const std::string& path, const std::string& content, std::string* error) {
  // A temporary of a random name that must not exist yet (O_EXCL, so never a
  // symlink another user planted for a name they could guess), mode 0600
  // (reports hold the command line), written whole, then renamed into
  // place: rename replaces a link at `path` itself, never what it points to.
  std::string temporary = path + ".tmp.XXXXXX";
  int fd = mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot create a temporary file beside " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write " + temporary + ": " + std::strerror(n < 0 ? errno : EIO);
      close(fd);
      unlink(temporary.c_str());
      return false;
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    *error = "cannot write " + temporary + ": " + std::strerror(errno);
    unlink(temporary.c_str());
    return false;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

bool parse_output_formats(const std::vector<std::string>& specs, std::vector<OutputFormat>* out, std::string* error) {
  if (specs.empty()) return true;
  std::vector<OutputFormat> parsed;
  for (const std::string& spec : specs) {
    OutputFormat f;
    if (!parse_output_format(spec, &f, error)) return false;
    parsed.push_back(f);
  }
  // Files only: the text report still goes to the terminal.
  bool to_stdout = false;
  for (const OutputFormat& f : parsed) to_stdout |= f.file.empty();
  if (!to_stdout) parsed.insert(parsed.begin(), OutputFormat{"text", ""});
  *out = std::move(parsed);
  return true;
}

std::string render_report(const Report& report, const std::string& format, const TextReportOptions& options) {
  // Strings from the trace (paths, thread and function names, the command
  // line) need not be UTF-8: invalid bytes become U+FFFD, never an abort.
  if (format == "json")
    return findings_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (format == "sarif") {
    return findings_sarif(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (format == "junit") return findings_junit(report);
  if (format == "perfetto") return perfetto_trace(report);
  if (format == "html") return html_report(report);
  if (format == "github") {
    const char* workspace = std::getenv("GITHUB_WORKSPACE");
    return findings_github(report, workspace ? workspace : "");
  }
  std::ostringstream text;
  render_text_report(report, options, text);
  // Strings from the trace and from source files may hold terminal controls.
  return terminal_safe(text.str(), options.color);
}

bool write_outputs(const Report& report, const std::vector<OutputFormat>& formats, const TextReportOptions& options) {
  bool ok = true;
  for (const OutputFormat& f : formats) {
    TextReportOptions text_options = options;
    text_options.color = f.file.empty() && isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
    std::string rendered = render_report(report, f.format, text_options);
    if (f.file.empty()) {
      std::cout << rendered;
      std::cout.flush();
      continue;
    }
    std::string error;
    if (!write_file_atomically(f.file, rendered, &error)) {
      spdlog::error("{}", error);
      ok = false;
    } else {
      spdlog::info("{} report written to {}", f.format, f.file);
    }
  }
  return ok;
}

}  // namespace syncscope
