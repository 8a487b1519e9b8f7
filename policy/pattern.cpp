#include "policy/pattern.h"

#include <string>

namespace syncscope {
namespace {

// Glob with '*' only, anchored at both ends; iterative with one backtrack
// point, linear in practice and never recursive (patterns come from files).
bool glob_full(std::string_view p, std::string_view t) {
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (pi < p.size() && p[pi] == t[ti]) {
      ++pi;
      ++ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

bool pattern_matches(std::string_view pattern, std::string_view text) {
  bool anchored_start = !pattern.empty() && pattern.front() == '^';
  if (anchored_start) pattern.remove_prefix(1);
  bool anchored_end = !pattern.empty() && pattern.back() == '$';
  if (anchored_end) pattern.remove_suffix(1);
  if (pattern.empty()) return true;
  std::string glob;
  if (!anchored_start) glob += '*';
  glob += pattern;
  if (!anchored_end) glob += '*';
  return glob_full(glob, text);
}

}  // namespace syncscope
