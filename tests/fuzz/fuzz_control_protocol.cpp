// Attach's control protocol (trace/control_protocol.h) on arbitrary lines:
// what the recorder reads from any process that can reach its socket, and
// what `syncscope attach` reads back. A line parses or is refused, never a
// crash; a parsed line, encoded again, parses to the same message (the two
// sides build and read lines with the same code, so they must agree); a
// parsed request survives the same trip; replies decode or are refused.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "trace/control_protocol.h"

using namespace syncscope::control;

namespace {

bool same(const Message& a, const Message& b) { return a.word == b.word && a.fields == b.fields; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  std::optional<Message> message = parse(line);
  if (message) {
    const std::string encoded = encode(*message);
    // Escaping may lengthen a line past the limit, which parse() refuses.
    if (encoded.size() <= kMaxLineBytes) {
      std::optional<Message> again = parse(encoded);
      FUZZ_CHECK(again && same(*again, *message));
    }
  }
  std::string error;
  std::optional<Request> request = parse_request(line, &error);
  FUZZ_CHECK(request.has_value() != !error.empty());
  if (request) {
    const std::string encoded = encode(*request);
    if (encoded.size() <= kMaxLineBytes) {
      std::string error_again;
      std::optional<Request> again = parse_request(encoded, &error_again);
      FUZZ_CHECK(again && again->command == request->command && again->output_dir == request->output_dir &&
                 again->gpu_timeline == request->gpu_timeline && again->gpu_sampling == request->gpu_sampling);
    }
  }
  if (std::optional<Reply> reply = parse_reply(line); reply && reply->ok) {
    HelloReply hello;
    StartReply start;
    StopReply stop;
    if (decode(reply->message, &hello)) FUZZ_CHECK(hello.mode == *reply->message.find("mode"));
    (void)decode(reply->message, &start);
    (void)decode(reply->message, &stop);
  }
  return 0;
}
