#include "report/site_text.h"

#include "report/frame_folding.h"
#include "trace/source_paths.h"

namespace syncscope {

std::string user_location(const SiteFrames& site, const std::string& cwd) {
  if (site.has_user && site.user.python) {
    return display_source_path(site.user.file, cwd) + ":" + std::to_string(site.user.line);
  }
  if (site.has_user && site.user_native_index >= 0) {
    return elide_symbol(site.user.function) + " (" + site.native[site.user_native_index].module + ")";
  }
  return "unknown site";
}

std::string user_text(const SiteFrames& site) {
  if (!site.has_user || !site.user.python) return "";
  return site.user.source.empty() ? "in " + site.user.function : site.user.source;
}

std::string sync_location(const SiteFrames& site, const std::string& cwd) {
  if (!site.has_sync) return user_location(site, cwd);
  return display_source_path(site.sync.file, cwd) + ":" + std::to_string(site.sync.line);
}

std::string sync_text(const SiteFrames& site) {
  if (!site.has_sync) return user_text(site);
  return site.sync.source.empty() ? "in " + site.sync.function : site.sync.source;
}

std::string reached_from(const SiteFrames& site, const std::string& cwd) {
  if (!site.sync_in_library() || !site.has_user) return "";
  const std::string text = user_text(site);
  return user_location(site, cwd) + (text.empty() ? "" : "  " + text);
}

std::vector<std::string> native_lines(const SiteFrames& site, int max_frames) {
  std::vector<std::string> out;
  for (const FoldedLine& line : fold_frames(site.native, {false, max_frames})) out.push_back(line.text);
  return out;
}

}  // namespace syncscope
