#include "trace/source_paths.h"

#include <cstdio>
#include <vector>

namespace syncscope {

std::string absolute_source_path(const std::string& file, const std::string& cwd) {
  std::string joined = !file.empty() && file[0] == '/' ? file : cwd + "/" + file;
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= joined.size()) {
    size_t slash = joined.find('/', i);
    if (slash == std::string::npos) slash = joined.size();
    std::string part = joined.substr(i, slash - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = slash + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::string display_source_path(const std::string& file, const std::string& cwd) {
  if (file.empty() || file[0] != '/') return file;
  std::string inside = cwd.empty() ? std::string() : path_inside(absolute_source_path(file, cwd), cwd);
  if (!inside.empty()) return inside;
  // An installed package's file by its import path: transformers/trainer.py.
  for (const char* marker : {"/site-packages/", "/dist-packages/"}) {
    const size_t at = file.rfind(marker);
    if (at != std::string::npos) return file.substr(at + std::char_traits<char>::length(marker));
  }
  return file;
}

std::string path_inside(const std::string& path, const std::string& root) {
  if (root.empty()) return {};
  std::string prefix = root.back() == '/' ? root : root + "/";
  if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) return path.substr(prefix.size());
  return {};
}

std::string uri_escape_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '-' ||
                 c == '_' || c == '.' || c == '~' || c == '+' || c == '@' || c == ':';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof(buffer), "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

}  // namespace syncscope
