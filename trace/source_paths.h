// Paths of source files as CI systems want them: relative to the checkout
// (a SARIF base URI, a GitHub workspace) when the file lies inside it.
#pragma once

#include <string>

namespace syncscope {

// `file` made absolute against `cwd` (the recorded process's working
// directory) when it is relative; "." and ".." components removed.
std::string absolute_source_path(const std::string& file, const std::string& cwd);
// `path` relative to directory `root` when inside it, else "".
std::string path_inside(const std::string& path, const std::string& root);
// How the report shows a source file: relative to `cwd` when it lies
// inside it (train.py, models/net.py), an installed package's file from its
// package (transformers/trainer.py), else as recorded.
std::string display_source_path(const std::string& file, const std::string& cwd);
// Percent-encodes what a URI path may not hold literally (RFC 3986).
std::string uri_escape_path(const std::string& path);

}  // namespace syncscope
