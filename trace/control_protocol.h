// The control protocol between `syncscope attach` (tools/control_client.h)
// and the recorder of a dormant or injected process
// (preload/attach/control_endpoint.h). Both sides build and read every line with
// this file, so neither can drift from the other; docs/control-protocol.md
// describes it for people (transport, messages, replies, errors,
// versioning).
//
// A line is a word followed by key=value fields (logfmt):
//   start dir="/home/me/my traces"
//   ok trace=/tmp/t/1234-1.sstrace redirected=12
//   error reason="no session is recording"
// Values are bare unless they are empty or hold a space, a quote, a
// backslash or a control byte; then they are quoted, with \" \\ \n \r \t
// and \xHH escapes. Readers ignore fields they do not know, so a field can
// be added without a new protocol version.
//
// Standard library only: the preload compiles this in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope::control {

// Sent in the hello reply. Changed when a command, reply or field changes
// meaning or disappears; never for an added field.
inline constexpr int kProtocolVersion = 1;

// The endpoint's name in the abstract socket namespace, without the leading
// NUL: "syncscope.<pid>" (shown as "@syncscope.<pid>").
std::string socket_name(long pid);

// Longest line either side accepts, newline excluded.
inline constexpr size_t kMaxLineBytes = 8192;

// ---- the line format ----

struct Message {
  std::string word;
  std::vector<std::pair<std::string, std::string>> fields;  // in order

  Message& set(std::string key, std::string value);
  Message& set(std::string key, uint64_t value);
  // The first field named `key`, or nullptr.
  const std::string* find(std::string_view key) const;
};

// One line, without its newline. Keys and the word must be non-empty runs
// of [A-Za-z0-9_.-] (the code that builds messages only uses constants).
std::string encode(const Message& message);
// nullopt when the line does not follow the format.
std::optional<Message> parse(std::string_view line);

// ---- requests (client to recorder) ----

enum class Command { kHello, kStart, kFlush, kStop };
const char* command_word(Command command);  // "hello", "start", "flush", "stop"

struct Request {
  Command command = Command::kHello;
  std::string output_dir;     // start only: the absolute directory to record into
  bool gpu_timeline = false;  // start only: also record the GPU timeline (field gpu_timeline=1; added in version 1)
  // start only, with gpu_timeline: "full" or "W/P" ms (field gpu_sampling;
  // absent: the recorder's default windows; an older recorder ignores it).
  std::string gpu_sampling;
};
std::string encode(const Request& request);
// nullopt with `error` set to what the recorder answers: a malformed line,
// an unknown command, a missing field.
std::optional<Request> parse_request(std::string_view line, std::string* error);

// ---- replies (recorder to client) ----

inline constexpr const char* kOk = "ok";
inline constexpr const char* kError = "error";
// hello's state field.
inline constexpr const char* kStateIdle = "idle";
inline constexpr const char* kStateRecording = "recording";

struct HelloReply {
  std::string version;              // the recorder's syncscope version
  int protocol = kProtocolVersion;  // decoded as sent: compare with kProtocolVersion
  long pid = 0;
  std::string mode;  // info_key::kAttachModeDormant or kAttachModeInjected
  bool recording = false;
  std::string trace;  // the trace file being written now ("" when none; field added in version 1)
};
struct StartReply {
  std::string trace;        // the trace file this session writes
  uint64_t redirected = 0;  // import slots pointed at the hooks (injected; 0 when dormant)
};
struct StopReply {
  uint64_t events = 0;    // events the session wrote
  uint64_t restored = 0;  // import slots put back as they were (injected)
  uint64_t left = 0;      // slots changed by someone else meanwhile, left as found
  uint64_t gone = 0;      // slots whose object was unloaded meanwhile
};

Message ok_reply();  // flush: "ok" alone
Message ok_reply(const HelloReply& reply);
Message ok_reply(const StartReply& reply);
Message ok_reply(const StopReply& reply);
Message error_reply(std::string_view reason);

// A reply as the client reads it: "ok" with its fields, or "error" with
// its reason. nullopt: neither (a recorder speaking another protocol).
struct Reply {
  bool ok = false;
  std::string error;  // the reason, when !ok
  Message message;
};
std::optional<Reply> parse_reply(std::string_view line);

// The fields of an "ok" reply; false when one is missing or malformed.
bool decode(const Message& ok, HelloReply* out);
bool decode(const Message& ok, StartReply* out);
bool decode(const Message& ok, StopReply* out);

}  // namespace syncscope::control
