#include "policy/findings_diff.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace syncscope {
namespace {

struct Grouped {
  FindingIdentity id;
  DiffSide side;
};

double number(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A count from the file, which anyone may have edited: a negative or
// fractional one is read as 0 or cut, one past 2^64 as 2^64 - 1 (casting
// such a double to an integer is undefined; the fuzzer found "count": -8).
uint64_t count(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return 0;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  const double value = it->get<double>();
  if (!(value >= 1)) return 0;
  return value >= 0x1p64 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(value);
}

std::vector<Grouped> group(const nlohmann::json& doc, bool include_warmup) {
  std::vector<Grouped> out;
  for (const auto& p : doc["processes"]) {
    for (const auto& f : p["findings"]) {
      if (!f.is_object()) continue;  // as a baseline does: what is not a finding identifies nothing
      const auto phase = f.find("phase");
      const bool steady = phase != f.end() && phase->is_string() && phase->get<std::string>() == "steady";
      if (!include_warmup && !steady) continue;
      auto suppressed = f.find("suppressed");
      if (suppressed != f.end() && !suppressed->is_null()) continue;
      FindingIdentity id = identity_from_json(f);
      Grouped* g = nullptr;
      for (Grouped& existing : out) {
        if (same_site(existing.id, id)) g = &existing;
      }
      if (!g) {
        out.push_back({id, {}});
        g = &out.back();
        const auto sequence = f.find("api_sequence");
        g->side.api_sequence = sequence != f.end() && sequence->is_string() ? sequence->get<std::string>() : "";
        g->side.line = id.file.empty() ? id.function : id.file + ":" + std::to_string(id.line);
      }
      const uint64_t n = count(f, "count");  // summed over processes, saturating
      g->side.count = n > std::numeric_limits<uint64_t>::max() - g->side.count ? std::numeric_limits<uint64_t>::max()
                                                                               : g->side.count + n;
      g->side.per_step = std::max(g->side.per_step, number(f, "per_step"));
      g->side.host_blocked_us_per_step =
          std::max(g->side.host_blocked_us_per_step, number(f, "host_blocked_us_per_step"));
      g->side.processes += 1;
    }
  }
  return out;
}

// A real change, not run-to-run noise: per-step count off by a quarter and
// at least 0.25 calls, or blocked time per step off by half and 20 µs.
std::string describe_change(const DiffSide& a, const DiffSide& b) {
  char buffer[200];
  std::string out;
  if (std::fabs(b.per_step - a.per_step) >= 0.25 &&
      (a.per_step == 0 || b.per_step / a.per_step > 1.25 || b.per_step / a.per_step < 0.8)) {
    std::snprintf(buffer, sizeof(buffer), "per step %.2f -> %.2f", a.per_step, b.per_step);
    out = buffer;
  }
  double x = a.host_blocked_us_per_step, y = b.host_blocked_us_per_step;
  if (std::fabs(y - x) >= 20 && (x == 0 || y / x > 1.5 || y / x < 1 / 1.5)) {
    std::snprintf(buffer, sizeof(buffer), "host blocked per step %.1f us -> %.1f us", x, y);
    out += std::string(out.empty() ? "" : ", ") + buffer;
  }
  return out;
}

}  // namespace

FindingsDiff diff_findings(const nlohmann::json& base, const nlohmann::json& now, bool include_warmup) {
  FindingsDiff diff;
  std::vector<Grouped> before = group(base, include_warmup), after = group(now, include_warmup);
  std::vector<bool> matched(before.size(), false);
  for (const Grouped& g : after) {
    int index = -1;
    for (size_t i = 0; i < before.size() && index < 0; ++i) {
      if (!matched[i] && same_site(before[i].id, g.id)) index = static_cast<int>(i);
    }
    if (index < 0) {
      diff.added.push_back({g.id, {}, g.side, ""});
      continue;
    }
    matched[index] = true;
    DiffEntry entry{g.id, before[index].side, g.side, describe_change(before[index].side, g.side)};
    (entry.change.empty() ? diff.unchanged : diff.changed).push_back(entry);
  }
  for (size_t i = 0; i < before.size(); ++i) {
    if (!matched[i]) diff.fixed.push_back({before[i].id, before[i].side, {}, ""});
  }
  return diff;
}

}  // namespace syncscope
