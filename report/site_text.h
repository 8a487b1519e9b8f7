// A finding's site in words, shared by the terminal report and the pictures
// (report/perfetto_report.h, report/html_report.h): where it is, what the
// line says, its native frames folded.
#pragma once

#include <string>
#include <vector>

#include "sites/site_frames.h"

namespace syncscope {

// "train.py:42" for a Python user frame (relative to the recorded working
// directory when inside it), "read_loss_value(…) (app)" for a native one,
// "unknown site" without either.
std::string user_location(const SiteFrames& site, const std::string& cwd);
// What the user line does: its text, else "in FUNCTION"; "" for native sites.
std::string user_text(const SiteFrames& site);
// Where the finding is: the line that syncs ("transformers/trainer.py:1847"
// inside a library, "train.py:42" in the user's loop); user_location()
// without a sync frame.
std::string sync_location(const SiteFrames& site, const std::string& cwd);
// What that line does, as user_text().
std::string sync_text(const SiteFrames& site);
// When the line that syncs is a library's: "hf_trainer.py:20" and its text,
// the user's line that reached it; "" otherwise.
std::string reached_from(const SiteFrames& site, const std::string& cwd);
// The native frames as the report folds them (report/frame_folding.h), at
// most `max_frames` of their own.
std::vector<std::string> native_lines(const SiteFrames& site, int max_frames);

}  // namespace syncscope
