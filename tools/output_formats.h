// Report outputs chosen with --format F[=FILE] (repeatable): "text" (the
// default) or "json", to standard output or, atomically, to FILE.
#pragma once

#include <string>
#include <vector>

#include "report/text_report.h"
#include "trace/reader.h"

namespace syncscope {

struct OutputFormat {
  std::string format;  // "text" | "json"
  std::string file;    // "" = standard output
};

// Parses "json", "json=out.json", "text"; false with *error for anything else.
bool parse_output_format(const std::string& spec, OutputFormat* out, std::string* error);

// Writes every requested output; false if a file could not be written.
bool write_outputs(const std::vector<ProcessTrace>& traces, const std::vector<OutputFormat>& formats,
                   const TextReportOptions& options);

// Writes content to path through a temporary file and rename(2): readers never
// see a half-written report.
bool write_file_atomically(const std::string& path, const std::string& content, std::string* error);

}  // namespace syncscope
