// Recording sessions of a dormant or attached process, driven by the
// control endpoint (control_endpoint.h): start recording into a directory,
// flush, stop. Between sessions the hooks pass straight through (one
// relaxed load) and, in a process attached by injection, no import slot
// points at them any more.
#pragma once

#include <string>

namespace syncscope::preload {

// Each returns the reply line: "ok ..." or "error <reason>".
std::string session_start(const std::string& output_dir);
std::string session_flush();
std::string session_stop();
bool session_active();
// "hello": version, pid, how the library was loaded, whether recording.
std::string session_describe();

}  // namespace syncscope::preload
