#include "report/known_sites.h"

#include <nlohmann/json.hpp>

#include "trace/source_paths.h"

namespace syncscope {

// report/known_sites_data.cpp, generated from report/known_sites.json.
extern const char* const kKnownSitesJson;

namespace {

bool ends_with_path(const std::string& file, const std::string& suffix) {
  if (suffix.empty() || file.size() < suffix.size()) return false;
  if (file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return file.size() == suffix.size() || file[file.size() - suffix.size() - 1] == '/';
}

// Python 3.11+ records qualified names (Trainer._run_epoch); older ones the
// bare name (_run_epoch). Either matches the other.
bool same_function(const std::string& recorded, const std::string& wanted) {
  if (recorded == wanted) return true;
  auto last = [](const std::string& name) {
    const size_t dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
  };
  const bool recorded_bare = recorded.find('.') == std::string::npos, wanted_bare = wanted.find('.') == std::string::npos;
  return (recorded_bare || wanted_bare) && last(recorded) == last(wanted);
}

struct Table {
  std::vector<KnownSite> sites;
  std::string error;
};

const Table& table() {
  static const Table parsed = [] {
    Table t;
    if (!parse_known_sites(kKnownSitesJson, &t.sites, &t.error)) t.sites.clear();
    return t;
  }();
  return parsed;
}

std::string text_field(const nlohmann::json& entry, const char* key, bool required, std::string* error) {
  auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) {
    if (required) *error = std::string("missing \"") + key + "\"";
    return "";
  }
  if (!it->is_string()) {
    *error = std::string("\"") + key + "\" is not a string";
    return "";
  }
  return it->get<std::string>();
}

}  // namespace

const std::vector<KnownSite>& known_sites() { return table().sites; }
const std::string& known_sites_error() { return table().error; }

bool parse_known_sites(const std::string& json, std::vector<KnownSite>* out, std::string* error) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (doc.is_discarded() || !doc.is_array()) {
    *error = "the known-sites table is not a JSON array";
    return false;
  }
  out->clear();
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& entry = doc[i];
    std::string why;
    KnownSite site;
    if (!entry.is_object()) why = "not an object";
    if (why.empty()) site.id = text_field(entry, "id", true, &why);
    if (why.empty()) site.library = text_field(entry, "library", true, &why);
    if (why.empty()) site.file = text_field(entry, "file", true, &why);
    if (why.empty()) site.function = text_field(entry, "function", false, &why);
    if (why.empty()) site.source = text_field(entry, "source", false, &why);
    if (why.empty()) site.fix = text_field(entry, "fix", true, &why);
    if (why.empty()) {
      auto ops = entry.find("operations");
      if (ops != entry.end() && ops->is_array()) {
        for (const nlohmann::json& op : *ops) {
          if (!op.is_string()) why = "\"operations\" holds a non-string";
          else site.operations.push_back(op.get<std::string>());
        }
      } else if (ops != entry.end()) {
        why = "\"operations\" is not an array";
      }
    }
    if (why.empty()) {
      auto checked = entry.find("checked");
      if (checked == entry.end() || !checked->is_object() || checked->empty()) {
        why = "\"checked\" must name the versions it was checked against";
      } else {
        for (const auto& [package, version] : checked->items()) {
          if (!version.is_string()) why = "\"checked\" versions must be strings";
          else site.checked.emplace_back(package, version.get<std::string>());
        }
      }
    }
    if (!why.empty()) {
      *error = "known site " + std::to_string(i) + (site.id.empty() ? "" : " (" + site.id + ")") + ": " + why;
      return false;
    }
    out->push_back(std::move(site));
  }
  return true;
}

const KnownSite* match_known_site(const std::vector<KnownSite>& table, const SiteFrames& site, Operation op,
                                  Category category) {
  if (category == Category::kDefaultStream) return nullptr;
  const bool waiter = site.python.empty();
  const std::vector<PythonSiteFrame>& frames = waiter ? site.waiter_python : site.python;
  const size_t last = site.has_sync && site.sync_python_index >= 0 ? static_cast<size_t>(site.sync_python_index)
                                                                    : frames.size() - (frames.empty() ? 0 : 1);
  const std::string op_name = operation_name(op);
  for (size_t i = 0; i < frames.size() && i <= last; ++i) {
    const PythonSiteFrame& frame = frames[i];
    for (const KnownSite& known : table) {
      if (!ends_with_path(frame.file, known.file)) continue;
      if (!known.function.empty() && !same_function(frame.function, known.function)) continue;
      if (!known.operations.empty() && op != Operation::kUnknown) {
        bool makes = false;
        for (const std::string& name : known.operations) makes |= name == op_name;
        if (!makes) continue;
      }
      if (!known.source.empty()) {
        // The sync frame's text is already read; other frames' only when needed.
        const std::string text = static_cast<int>(i) == site.sync_python_index && site.has_sync
                                     ? site.sync.source
                                     : source_line(frame.file, frame.line);
        if (!text.empty() && text.find(known.source) == std::string::npos) continue;
      }
      return &known;
    }
  }
  return nullptr;
}

}  // namespace syncscope
