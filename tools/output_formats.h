// Report outputs chosen with --format F[=FILE] (repeatable): text (the
// default), json, sarif, junit, github, and the pictures perfetto (a
// Chrome/Perfetto trace) and html (a self-contained page); to standard
// output or, atomically, to FILE.
#pragma once

#include <string>
#include <vector>

#include "report/report_model.h"
#include "report/text_report.h"

namespace syncscope {

struct OutputFormat {
  std::string format;  // "text" | "json" | "sarif" | "junit" | "github" | "perfetto" | "html"
  std::string file;    // "" = standard output
};

// Parses "json", "sarif=out.sarif", "text"...; false with *error for anything else.
bool parse_output_format(const std::string& spec, OutputFormat* out, std::string* error);
// Parses every spec; an empty list leaves *out as it is (the default). When
// every format goes to a file, text is added for standard output.
bool parse_output_formats(const std::vector<std::string>& specs, std::vector<OutputFormat>* out, std::string* error);

// Renders one format.
std::string render_report(const Report& report, const std::string& format, const TextReportOptions& options);

// Writes every requested output; false if a file could not be written.
bool write_outputs(const Report& report, const std::vector<OutputFormat>& formats, const TextReportOptions& options);

// Writes content to path through a temporary file and rename(2): readers never
// see a half-written report.
bool write_file_atomically(const std::string& path, const std::string& content, std::string* error);

}  // namespace syncscope
