#include "policy/baseline.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include "policy/input_file.h"

namespace syncscope {
namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Runs of blanks become one space, so re-indented code still matches.
std::string normalize_source(const std::string& s) {
  std::string out;
  bool blank = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string string_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

FindingIdentity make_identity(const std::string& category, const std::string& file, uint32_t line,
                              const std::string& function, const std::string& source) {
  return FindingIdentity{category, base_name(file), function, normalize_source(source), line};
}

FindingIdentity identity_from_json(const nlohmann::json& finding) {
  std::string category = string_field(finding, "category");
  // The line that syncs identifies the site (report/report_model.cpp);
  // documents written before it existed have the user's line only.
  auto user = finding.find("sync_frame");
  if (user == finding.end() || !user->is_object()) user = finding.find("user_frame");
  if (user == finding.end() || !user->is_object()) {
    return make_identity(category, "", 0, string_field(finding, "api_sequence"), "");
  }
  uint32_t line = 0;
  auto l = user->find("line");
  if (l != user->end() && l->is_number_integer() && l->get<int64_t>() > 0)
    line = static_cast<uint32_t>(l->get<int64_t>());
  return make_identity(category, string_field(*user, "file"), line, string_field(*user, "function"),
                       string_field(*user, "source"));
}

bool same_site(const FindingIdentity& a, const FindingIdentity& b) {
  if (a.category != b.category || a.file != b.file || a.function != b.function) return false;
  if (!a.source.empty() && !b.source.empty()) return a.source == b.source;
  return a.line == b.line;
}

std::string fingerprint(const FindingIdentity& id) {
  // FNV-1a over the fields that identify the site (not the line when the
  // source is known): the same value wherever same_site() would match.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  };
  mix(id.category);
  mix(id.file);
  mix(id.function);
  mix(id.source.empty() ? "line:" + std::to_string(id.line) : id.source);
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

std::string describe(const FindingIdentity& id) {
  std::string out = id.category + " at ";
  if (id.file.empty()) return out + id.function;
  out += id.file;
  if (id.line) out += ":" + std::to_string(id.line);
  return out + " in " + id.function;
}

absl::Status check_findings_document(const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) {
    return absl::InvalidArgumentError(source + ": not a syncscope findings file (no \"schema\")");
  }
  std::string schema = doc["schema"].get<std::string>();
  if (schema != "syncscope/findings/v1") {
    return absl::InvalidArgumentError(source + ": schema '" + schema + "' is not syncscope/findings/v1");
  }
  if (!doc.contains("processes") || !doc["processes"].is_array()) {
    return absl::InvalidArgumentError(source + ": no \"processes\" array");
  }
  for (const auto& p : doc["processes"]) {
    if (!p.is_object() || !p.contains("findings") || !p["findings"].is_array()) {
      return absl::InvalidArgumentError(source + ": a process without a \"findings\" array");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> parse_findings_document(std::string_view text, const std::string& source) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return absl::InvalidArgumentError(source + ": not valid JSON");
  absl::Status ok = check_findings_document(doc, source);
  if (!ok.ok()) return ok;
  return doc;
}

absl::StatusOr<nlohmann::json> load_findings_document(const std::string& path) {
  absl::StatusOr<std::string> text = read_input_file(path, "findings file");
  if (!text.ok()) return text.status();
  return parse_findings_document(*text, path);
}

bool Baseline::contains(const FindingIdentity& id) const {
  for (const FindingIdentity& f : findings) {
    if (same_site(f, id)) return true;
  }
  return false;
}

absl::StatusOr<Baseline> baseline_from_json(const nlohmann::json& doc, const std::string& source) {
  absl::Status ok = check_findings_document(doc, source);
  if (!ok.ok()) return ok;
  Baseline b;
  b.source = source;
  for (const auto& p : doc["processes"]) {
    for (const auto& f : p["findings"]) b.findings.push_back(identity_from_json(f));
  }
  return b;
}

absl::StatusOr<Baseline> load_baseline(const std::string& path) {
  auto doc = load_findings_document(path);
  if (!doc.ok()) return doc.status();
  return baseline_from_json(*doc, path);
}

}  // namespace syncscope
