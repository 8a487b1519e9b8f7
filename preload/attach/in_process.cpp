// The recorder driven from inside its own process: python/syncscope's
// watch() calls these through ctypes rather than connecting to the control
// socket (docs/python.md). The requests and replies are the control
// protocol's lines (docs/control-protocol.md), answered by the same code as
// the endpoint's (session.h), so the Python side has one parser for both.
//
//   syncscope_control("start dir=/tmp/x", reply, size)
//   syncscope_control_endpoint_stop()
//
// A process whose recorder Python loaded itself closes the endpoint right
// after loading it (syncscope_control_endpoint_stop): with the collector
// joined at each session's stop, no thread of the recorder is left between
// watches.
#include <cstddef>
#include <cstring>
#include <exception>
#include <optional>
#include <string>

#include "preload/attach/control_endpoint.h"
#include "preload/core/in_hook.h"
#include "preload/attach/session.h"
#include "trace/control_protocol.h"

namespace {

// The reply line into `out` (cut to fit, NUL-terminated); its full length.
int write_reply(const syncscope::control::Message& message, char* out, unsigned long size) {
  std::string line = syncscope::control::encode(message);
  if (out != nullptr && size > 0) {
    size_t n = line.size() < size - 1 ? line.size() : size - 1;
    std::memcpy(out, line.data(), n);
    out[n] = '\0';
  }
  return static_cast<int>(line.size());
}

}  // namespace

// One request line (without newline) answered into `reply`: returns the
// reply's length, which is >= `reply_size` when it was cut (ask again with
// more room: a request has no effect twice only for hello and flush, so give
// room enough: 16 KiB holds any reply). Never throws; never records itself.
extern "C" __attribute__((visibility("default"))) int syncscope_control(const char* request, char* reply,
                                                                      unsigned long reply_size) {
  using namespace syncscope;
  preload::InHookScope in_hook;  // nothing done here is the program's own work
  try {
    std::string error;
    std::optional<control::Request> parsed =
        control::parse_request(request != nullptr ? request : "", &error);
    if (!parsed) return write_reply(control::error_reply(error), reply, reply_size);
    return write_reply(preload::session_handle(*parsed), reply, reply_size);
  } catch (const std::exception& e) {
    return write_reply(control::error_reply(std::string("the recorder failed: ") + e.what()), reply, reply_size);
  } catch (...) {
    return write_reply(control::error_reply("the recorder failed"), reply, reply_size);
  }
}

// Closes the control endpoint and joins its thread: 1 when none is left, 0
// when its thread is busy with a client (it ends when the client goes).
extern "C" __attribute__((visibility("default"))) int syncscope_control_endpoint_stop() {
  syncscope::preload::InHookScope in_hook;
  return syncscope::preload::control_endpoint_stop(2000) ? 1 : 0;
}
