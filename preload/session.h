// Recording sessions of a dormant or attached process, driven by the
// control endpoint (control_endpoint.h): start recording into a directory,
// flush, stop. Between sessions the hooks pass straight through (one
// relaxed load) and, in a process attached by injection, no import slot
// points at them any more.
#pragma once

#include <string>

#include "trace/control_protocol.h"

namespace syncscope::preload {

// Each returns its reply (trace/control_protocol.h): ok, or error with the
// reason.
control::Message session_start(const std::string& output_dir, bool gpu_timeline = false,
                               const std::string& gpu_sampling = "");
control::Message session_flush();
control::Message session_stop();
bool session_active();
// hello: version, pid, how the library was loaded, whether recording.
control::Message session_describe();

}  // namespace syncscope::preload
