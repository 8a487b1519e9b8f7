// The control protocol's line format, requests and replies
// (trace/control_protocol.h): what `syncscope attach` and the recorder both
// rely on, so a change to either side that the other cannot read fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "trace/control_protocol.h"
#include "trace/process_info_keys.h"

namespace syncscope::control {
namespace {

Message parsed(std::string_view line) {
  std::optional<Message> m = parse(line);
  EXPECT_TRUE(m.has_value()) << line;
  return m.value_or(Message{});
}

TEST(ControlLine, BareAndQuotedValues) {
  Message m;
  m.word = "ok";
  m.set("trace", "/tmp/t/1234-1.sstrace").set("redirected", uint64_t{12});
  EXPECT_EQ(encode(m), "ok trace=/tmp/t/1234-1.sstrace redirected=12");
  m.fields.clear();
  m.set("reason", "no session is recording").set("empty", "");
  EXPECT_EQ(encode(m), "ok reason=\"no session is recording\" empty=\"\"");
}

TEST(ControlLine, EveryByteSurvivesTheRoundTrip) {
  std::string awkward = "a \"quoted\" back\\slash, tab\t, newline\n, cr\r, bell\a, del\x7f, = sign, utf-8 \xc3\xa9";
  Message m;
  m.word = "start";
  m.set("dir", awkward).set("plain", "x=y");
  std::string line = encode(m);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line, whatever the value";
  Message back = parsed(line);
  EXPECT_EQ(back.word, "start");
  ASSERT_EQ(back.fields.size(), 2u);
  EXPECT_EQ(back.fields[0], std::make_pair(std::string("dir"), awkward));
  EXPECT_EQ(back.fields[1], std::make_pair(std::string("plain"), std::string("x=y")));
}

TEST(ControlLine, ReadsWhatPeopleType) {
  Message m = parsed("  start   dir=/tmp/x  ");
  EXPECT_EQ(m.word, "start");
  ASSERT_NE(m.find("dir"), nullptr);
  EXPECT_EQ(*m.find("dir"), "/tmp/x");
  EXPECT_EQ(m.find("other"), nullptr);
  EXPECT_EQ(*parsed("ok a=\"\\x41\\\\\"").find("a"), "A\\");
}

TEST(ControlLine, RefusesWhatIsNotTheFormat) {
  for (const char* line :
       {"", "   ", "start /tmp/x", "ok syncscope 0.1.0 pid 12", "ok =v", "ok k=\"open", "ok k=\"x\"y", "ok k=\"\\q\"",
        "ok k=\"\\x4\"", "ok k=a\"b", "ok k=a\\b", "o!k", "ok k!=v"}) {
    EXPECT_FALSE(parse(line).has_value()) << line;
  }
  EXPECT_FALSE(parse(std::string(kMaxLineBytes + 1, 'a')).has_value());
}

TEST(ControlRequest, EachCommandRoundTrips) {
  std::string error;
  for (Command command : {Command::kHello, Command::kFlush, Command::kStop}) {
    std::string line = encode(Request{command, {}});
    EXPECT_EQ(line, command_word(command));
    std::optional<Request> back = parse_request(line, &error);
    ASSERT_TRUE(back.has_value()) << line << ": " << error;
    EXPECT_EQ(back->command, command);
  }
  std::string line = encode(Request{Command::kStart, "/home/me/my traces"});
  EXPECT_EQ(line, "start dir=\"/home/me/my traces\"");
  std::optional<Request> start = parse_request(line, &error);
  ASSERT_TRUE(start.has_value()) << error;
  EXPECT_EQ(start->command, Command::kStart);
  EXPECT_EQ(start->output_dir, "/home/me/my traces");
  EXPECT_FALSE(start->gpu_timeline);
  // attach --gpu-timeline: a field an older recorder ignores.
  std::string timeline = encode(Request{Command::kStart, "/t", true});
  EXPECT_EQ(timeline, "start dir=/t gpu_timeline=1");
  std::optional<Request> with = parse_request(timeline, &error);
  ASSERT_TRUE(with.has_value()) << error;
  EXPECT_TRUE(with->gpu_timeline);
}

TEST(ControlRequest, RefusalsSayWhy) {
  std::string error;
  EXPECT_FALSE(parse_request("bogus", &error).has_value());
  EXPECT_EQ(error, "unknown command: bogus");
  EXPECT_FALSE(parse_request("start", &error).has_value());
  EXPECT_EQ(error, "start needs dir=<absolute directory>");
  // The unversioned protocol's form.
  EXPECT_FALSE(parse_request("start /tmp/x", &error).has_value());
  EXPECT_EQ(error.rfind("malformed request", 0), 0u) << error;
  // Fields a newer client adds are ignored.
  EXPECT_TRUE(parse_request("stop reason=done", &error).has_value());
}

TEST(ControlReply, HelloRoundTrips) {
  HelloReply hello;
  hello.version = "0.1.0";
  hello.pid = 4321;
  hello.mode = info_key::kAttachModeInjected;
  hello.recording = true;
  hello.trace = "/tmp/t/4321-1.sstrace";
  std::string line = encode(ok_reply(hello));
  EXPECT_EQ(line, "ok syncscope=0.1.0 protocol=1 pid=4321 mode=injected state=recording trace=/tmp/t/4321-1.sstrace");
  std::optional<Reply> reply = parse_reply(line);
  ASSERT_TRUE(reply.has_value());
  ASSERT_TRUE(reply->ok);
  HelloReply back;
  ASSERT_TRUE(decode(reply->message, &back));
  EXPECT_EQ(back.version, "0.1.0");
  EXPECT_EQ(back.protocol, kProtocolVersion);
  EXPECT_EQ(back.pid, 4321);
  EXPECT_EQ(back.mode, "injected");
  EXPECT_TRUE(back.recording);
  EXPECT_EQ(back.trace, "/tmp/t/4321-1.sstrace");
  // Idle, nothing written yet: the field is there, empty.
  EXPECT_EQ(encode(ok_reply(HelloReply{"0.1.0", kProtocolVersion, 1, "dormant", false, ""})),
            "ok syncscope=0.1.0 protocol=1 pid=1 mode=dormant state=idle trace=\"\"");
}

TEST(ControlReply, HelloOfAnotherVersionIsReadAsSent) {
  HelloReply back;
  ASSERT_TRUE(decode(parsed("ok syncscope=9.0 protocol=7 pid=1 mode=dormant state=idle extra=1"), &back));
  EXPECT_EQ(back.protocol, 7);
  EXPECT_FALSE(back.recording);
  EXPECT_EQ(back.trace, "") << "a recorder older than the trace field";
  EXPECT_FALSE(decode(parsed("ok syncscope=9.0 pid=1 mode=dormant state=idle"), &back)) << "no protocol";
  EXPECT_FALSE(decode(parsed("ok syncscope=9.0 protocol=1 pid=1 mode=dormant state=asleep"), &back));
  // The unversioned recorder's hello is not the format at all.
  EXPECT_FALSE(parse_reply("ok syncscope 0.1.0 pid 12 mode dormant state idle").has_value());
}

TEST(ControlReply, StartStopAndFlush) {
  std::optional<Reply> start = parse_reply(encode(ok_reply(StartReply{"/tmp/a b/12-1.sstrace", 7})));
  ASSERT_TRUE(start.has_value() && start->ok);
  StartReply started;
  ASSERT_TRUE(decode(start->message, &started));
  EXPECT_EQ(started.trace, "/tmp/a b/12-1.sstrace");
  EXPECT_EQ(started.redirected, 7u);

  std::string stop_line = encode(ok_reply(StopReply{123456789012, 40, 1, 2}));
  EXPECT_EQ(stop_line, "ok events=123456789012 restored=40 left=1 gone=2");
  StopReply stopped;
  ASSERT_TRUE(decode(parsed(stop_line), &stopped));
  EXPECT_EQ(stopped.events, 123456789012u);
  EXPECT_EQ(stopped.restored, 40u);
  EXPECT_EQ(stopped.left, 1u);
  EXPECT_EQ(stopped.gone, 2u);
  EXPECT_FALSE(decode(parsed("ok events=12 restored=x left=0 gone=0"), &stopped));
  EXPECT_FALSE(decode(parsed("ok events=12 restored=-1 left=0 gone=0"), &stopped));
  EXPECT_FALSE(decode(parsed("ok events=12"), &stopped));

  EXPECT_EQ(encode(ok_reply()), "ok");
  std::optional<Reply> flushed = parse_reply("ok");
  ASSERT_TRUE(flushed.has_value());
  EXPECT_TRUE(flushed->ok);
}

TEST(ControlReply, ErrorsCarryTheirReason) {
  std::string line = encode(error_reply("the process cannot write to /x: Permission denied"));
  EXPECT_EQ(line, "error reason=\"the process cannot write to /x: Permission denied\"");
  std::optional<Reply> reply = parse_reply(line);
  ASSERT_TRUE(reply.has_value());
  EXPECT_FALSE(reply->ok);
  EXPECT_EQ(reply->error, "the process cannot write to /x: Permission denied");
  EXPECT_FALSE(parse_reply("maybe reason=x").has_value()) << "neither ok nor error";
}

TEST(ControlSocket, NameIsPerProcess) { EXPECT_EQ(socket_name(4321), "syncscope.4321"); }

TEST(ControlProtocol, DocumentedInDocs) {
  std::ifstream in(std::string(SYNCSCOPE_SOURCE_DIR) + "/docs/control-protocol.md");
  ASSERT_TRUE(in) << "docs/control-protocol.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (Command command : {Command::kHello, Command::kStart, Command::kFlush, Command::kStop}) {
    EXPECT_NE(doc.find(std::string("`") + command_word(command)), std::string::npos) << command_word(command);
  }
  // Every field of every reply, as it appears on the wire.
  HelloReply hello;
  for (const Message& m : {ok_reply(hello), ok_reply(StartReply{}), ok_reply(StopReply{}), error_reply("x")}) {
    for (const auto& [key, value] : m.fields) EXPECT_NE(doc.find("`" + key + "="), std::string::npos) << key;
  }
  EXPECT_NE(doc.find("protocol=" + std::to_string(kProtocolVersion)), std::string::npos);
}

}  // namespace
}  // namespace syncscope::control
