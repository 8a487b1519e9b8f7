#include "trace/control_protocol.h"

#include <charconv>

namespace syncscope::control {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

bool is_name(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

bool needs_quotes(std::string_view value) {
  if (value.empty()) return true;
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f || c == '"' || c == '\\') return true;
  }
  return false;
}

void append_value(std::string& out, std::string_view value) {
  if (!needs_quotes(value)) {
    out += value;
    return;
  }
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads a quoted value starting at line[*at] == '"'; leaves *at after the
// closing quote.
bool read_quoted(std::string_view line, size_t* at, std::string* value) {
  size_t i = *at + 1;
  while (i < line.size()) {
    char c = line[i++];
    if (c == '"') {
      *at = i;
      return true;
    }
    if (c != '\\') {
      *value += c;
      continue;
    }
    if (i >= line.size()) return false;
    char e = line[i++];
    switch (e) {
      case '"':
        *value += '"';
        break;
      case '\\':
        *value += '\\';
        break;
      case 'n':
        *value += '\n';
        break;
      case 'r':
        *value += '\r';
        break;
      case 't':
        *value += '\t';
        break;
      case 'x': {
        if (i + 2 > line.size()) return false;
        int high = hex_digit(line[i]), low = hex_digit(line[i + 1]);
        if (high < 0 || low < 0) return false;
        *value += static_cast<char>(high * 16 + low);
        i += 2;
        break;
      }
      default:
        return false;
    }
  }
  return false;  // no closing quote
}

std::optional<uint64_t> number(const Message& m, std::string_view key) {
  const std::string* text = m.find(key);
  if (text == nullptr || text->empty()) return std::nullopt;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

// Field names, shared by the encoders and decoders below.
constexpr const char* kFieldDir = "dir";
constexpr const char* kFieldGpuTimeline = "gpu_timeline";
constexpr const char* kFieldGpuSampling = "gpu_sampling";
constexpr const char* kFieldReason = "reason";
constexpr const char* kFieldVersion = "syncscope";
constexpr const char* kFieldProtocol = "protocol";
constexpr const char* kFieldPid = "pid";
constexpr const char* kFieldMode = "mode";
constexpr const char* kFieldState = "state";
constexpr const char* kFieldTrace = "trace";
constexpr const char* kFieldRedirected = "redirected";
constexpr const char* kFieldEvents = "events";
constexpr const char* kFieldRestored = "restored";
constexpr const char* kFieldLeft = "left";
constexpr const char* kFieldGone = "gone";

constexpr Command kCommands[] = {Command::kHello, Command::kStart, Command::kFlush, Command::kStop};

}  // namespace

std::string socket_name(long pid) { return "syncscope." + std::to_string(pid); }

Message& Message::set(std::string key, std::string value) {
  fields.emplace_back(std::move(key), std::move(value));
  return *this;
}

Message& Message::set(std::string key, uint64_t value) { return set(std::move(key), std::to_string(value)); }

const std::string* Message::find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string encode(const Message& message) {
  std::string out = message.word;
  for (const auto& [key, value] : message.fields) {
    out += ' ';
    out += key;
    out += '=';
    append_value(out, value);
  }
  return out;
}

std::optional<Message> parse(std::string_view line) {
  if (line.size() > kMaxLineBytes) return std::nullopt;
  Message m;
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < line.size() && line[i] == ' ') ++i;
  };
  skip_spaces();
  size_t start = i;
  while (i < line.size() && line[i] != ' ') ++i;
  m.word = std::string(line.substr(start, i - start));
  if (!is_name(m.word)) return std::nullopt;
  for (skip_spaces(); i < line.size(); skip_spaces()) {
    start = i;
    while (i < line.size() && line[i] != '=' && line[i] != ' ') ++i;
    std::string key(line.substr(start, i - start));
    if (i >= line.size() || line[i] != '=' || !is_name(key)) return std::nullopt;
    ++i;  // '='
    std::string value;
    if (i < line.size() && line[i] == '"') {
      if (!read_quoted(line, &i, &value)) return std::nullopt;
      if (i < line.size() && line[i] != ' ') return std::nullopt;
    } else {
      start = i;
      while (i < line.size() && line[i] != ' ') ++i;
      value = std::string(line.substr(start, i - start));
      if (value.find_first_of("\"\\") != std::string::npos) return std::nullopt;
    }
    m.fields.emplace_back(std::move(key), std::move(value));
  }
  return m;
}

const char* command_word(Command command) {
  switch (command) {
    case Command::kHello:
      return "hello";
    case Command::kStart:
      return "start";
    case Command::kFlush:
      return "flush";
    case Command::kStop:
      return "stop";
  }
  return "";
}

std::string encode(const Request& request) {
  Message m;
  m.word = command_word(request.command);
  if (request.command == Command::kStart) {
    m.set(kFieldDir, request.output_dir);
    if (request.gpu_timeline) m.set(kFieldGpuTimeline, "1");
    if (request.gpu_timeline && !request.gpu_sampling.empty()) m.set(kFieldGpuSampling, request.gpu_sampling);
  }
  return encode(m);
}

std::optional<Request> parse_request(std::string_view line, std::string* error) {
  std::optional<Message> m = parse(line);
  if (!m) {
    *error = "malformed request (a word, then key=value fields): " + std::string(line.substr(0, 64));
    return std::nullopt;
  }
  for (Command command : kCommands) {
    if (m->word != command_word(command)) continue;
    Request request;
    request.command = command;
    if (command == Command::kStart) {
      const std::string* dir = m->find(kFieldDir);
      if (dir == nullptr) {
        *error = "start needs dir=<absolute directory>";
        return std::nullopt;
      }
      request.output_dir = *dir;
      const std::string* timeline = m->find(kFieldGpuTimeline);
      request.gpu_timeline = timeline != nullptr && *timeline == "1";
      const std::string* sampling = m->find(kFieldGpuSampling);
      if (request.gpu_timeline && sampling != nullptr) request.gpu_sampling = *sampling;
    }
    return request;
  }
  *error = "unknown command: " + m->word.substr(0, 64);
  return std::nullopt;
}

Message ok_reply() {
  Message m;
  m.word = kOk;
  return m;
}

Message ok_reply(const HelloReply& reply) {
  Message m = ok_reply();
  m.set(kFieldVersion, reply.version)
      .set(kFieldProtocol, static_cast<uint64_t>(reply.protocol))
      .set(kFieldPid, static_cast<uint64_t>(reply.pid))
      .set(kFieldMode, reply.mode)
      .set(kFieldState, reply.recording ? kStateRecording : kStateIdle)
      .set(kFieldTrace, reply.trace);
  return m;
}

Message ok_reply(const StartReply& reply) {
  Message m = ok_reply();
  m.set(kFieldTrace, reply.trace).set(kFieldRedirected, reply.redirected);
  return m;
}

Message ok_reply(const StopReply& reply) {
  Message m = ok_reply();
  m.set(kFieldEvents, reply.events)
      .set(kFieldRestored, reply.restored)
      .set(kFieldLeft, reply.left)
      .set(kFieldGone, reply.gone);
  return m;
}

Message error_reply(std::string_view reason) {
  Message m;
  m.word = kError;
  m.set(kFieldReason, std::string(reason));
  return m;
}

std::optional<Reply> parse_reply(std::string_view line) {
  std::optional<Message> m = parse(line);
  if (!m) return std::nullopt;
  Reply reply;
  if (m->word == kOk) {
    reply.ok = true;
  } else if (m->word == kError) {
    const std::string* reason = m->find(kFieldReason);
    reply.error = reason != nullptr ? *reason : "(no reason given)";
  } else {
    return std::nullopt;
  }
  reply.message = std::move(*m);
  return reply;
}

bool decode(const Message& ok, HelloReply* out) {
  const std::string* version = ok.find(kFieldVersion);
  const std::string* mode = ok.find(kFieldMode);
  const std::string* state = ok.find(kFieldState);
  std::optional<uint64_t> protocol = number(ok, kFieldProtocol), pid = number(ok, kFieldPid);
  if (version == nullptr || mode == nullptr || state == nullptr || !protocol || !pid) return false;
  if (*state != kStateIdle && *state != kStateRecording) return false;
  out->version = *version;
  out->protocol = static_cast<int>(*protocol);
  out->pid = static_cast<long>(*pid);
  out->mode = *mode;
  out->recording = *state == kStateRecording;
  const std::string* trace = ok.find(kFieldTrace);  // optional: older recorders do not send it
  out->trace = trace != nullptr ? *trace : std::string();
  return true;
}

bool decode(const Message& ok, StartReply* out) {
  const std::string* trace = ok.find(kFieldTrace);
  std::optional<uint64_t> redirected = number(ok, kFieldRedirected);
  if (trace == nullptr || !redirected) return false;
  out->trace = *trace;
  out->redirected = *redirected;
  return true;
}

bool decode(const Message& ok, StopReply* out) {
  std::optional<uint64_t> events = number(ok, kFieldEvents), restored = number(ok, kFieldRestored),
                          left = number(ok, kFieldLeft), gone = number(ok, kFieldGone);
  if (!events || !restored || !left || !gone) return false;
  *out = StopReply{*events, *restored, *left, *gone};
  return true;
}

}  // namespace syncscope::control
