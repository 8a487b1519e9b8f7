// `syncscope attach` end to end against the fake runtime: a dormant process
// (preload + SYNCSCOPE_DORMANT, or `syncscope run --dormant`) reached through
// its control endpoint, and an unprepared one given the recorder by ptrace
// injection. Each checks the findings, that the process carried on and
// exited with its own status, and (injected) that its import slots were
// redirected while recording and are byte-for-byte as before afterwards.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/harness.h"
#include "tests/integration/import_slots_probe.h"
#include "trace/control_protocol.h"

namespace syncscope::testing {
namespace {

using namespace std::chrono_literals;

bool still_running(int pid) { return waitpid(pid, nullptr, WNOHANG) == 0; }

// Whether `dir` holds a trace file yet (a recorded process opens it at its first CUDA call).
bool has_trace_file(const std::string& dir) {
  auto files = list_trace_files(dir);
  return files.ok() && !files->empty();
}

// Waits until `needle` shows up in the file (a child's stderr), up to `limit`.
bool wait_for_text(const std::string& path, const std::string& needle, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (slurp(path).find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

RunResult attach(std::vector<std::string> args) {
  args.insert(args.begin(), {syncscope_bin(), "attach"});
  return run(args, fake_runtime_env(), 120);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The steady hidden-sync findings of the only process in a findings/v1 report.
std::vector<nlohmann::json> hidden_syncs(const nlohmann::json& report) {
  std::vector<nlohmann::json> out;
  if (!report.contains("processes") || report["processes"].empty())
    return out;  // nothing recorded: the caller's check fails
  for (const auto& f : report["processes"][0]["findings"]) {
    if (f["category"] == "hidden-sync" && f["phase"] == "steady") out.push_back(f);
  }
  return out;
}

std::map<std::string, std::string> dormant_env() {
  auto env = fake_runtime_env();
  env["LD_PRELOAD"] = preload_path();
  env.insert_or_assign("SYNCSCOPE_DORMANT", std::string(1, '1'));  // (a string literal trips GCC 12's -Wrestrict)
  return env;
}

TEST(Attach, DormantProcessIsRecordedOnlyWhileAttached) {
  std::string dir = fresh_dir("attach-dormant");
  Started target = start({example("long_loop"), "6", "7"}, dormant_env());
  std::this_thread::sleep_for(700ms);
  RunResult r = attach({std::to_string(target.pid), "--duration", "1500ms", "-o", dir + "/t", "--format",
                        "json=" + dir + "/r.json", "--format", "text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(still_running(target.pid)) << "the target must carry on after attach";
  EXPECT_NE(r.out.find("attached: a dormant recorder"), std::string::npos) << r.out;
  nlohmann::json report = read_json(dir + "/r.json");
  EXPECT_EQ(report["processes"][0]["attach"]["mode"], "dormant");
  auto syncs = hidden_syncs(report);
  ASSERT_EQ(syncs.size(), 1u) << report.dump(1);
  EXPECT_EQ(syncs[0]["user_frame"]["function"].get<std::string>().rfind("long_loop_step", 0), 0u) << syncs[0].dump(1);
  // Only the attached stretch was recorded: about 1.5 s, not the 6 s run.
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].complete) << traces[0].truncation;
  double span_s = (traces[0].events.back().end_ns - traces[0].events.front().start_ns) / 1e9;
  EXPECT_GT(span_s, 1.2);
  EXPECT_LT(span_s, 2.5);

  // A gate works as for `run`; a second session on the same process, too.
  r = attach({std::to_string(target.pid), "-d", "800ms", "-o", dir + "/t2", "--fail-on", "hidden-sync"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("gate: FAIL"), std::string::npos) << r.out;

  RunResult own = finish(target, 30);
  EXPECT_EQ(own.exit_code, 7) << own.err;
  EXPECT_NE(own.out.find("long_loop:"), std::string::npos) << own.out;
}

// `attach --gpu-timeline` turns the timeline on for that session only, in
// a process started without it (the fake CUPTI of tests/fakecuda).
TEST(Attach, GpuTimelineForOneSession) {
  std::string dir = fresh_dir("attach-timeline");
  auto env = dormant_env();
  env.erase("SYNCSCOPE_GPU_TIMELINE");
  Started target = start({example("long_loop"), "5", "0"}, env);
  std::this_thread::sleep_for(500ms);
  RunResult r = attach({std::to_string(target.pid), "-d", "800ms", "-o", dir + "/on", "--gpu-timeline", "--no-report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = attach({std::to_string(target.pid), "-d", "800ms", "-o", dir + "/off", "--no-report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto on = load_traces(dir + "/on");
  auto off = load_traces(dir + "/off");
  ASSERT_EQ(on.size(), 1u);
  ASSERT_EQ(off.size(), 1u);
  EXPECT_EQ(on[0].info("gpu_timeline"), "on");
  EXPECT_FALSE(on[0].gpu_activity.empty());
  EXPECT_EQ(off[0].info("gpu_timeline").rfind("off", 0), 0u) << off[0].info("gpu_timeline");
  EXPECT_TRUE(off[0].gpu_activity.empty());
  EXPECT_EQ(finish(target, 30).exit_code, 0);
}

// A sampled session keeps CUPTI attached between its bursts (config.h,
// gpu_detach_between_bursts: finalizing it between bursts of sessions that
// start and stop crashed a PyTorch process on a GPU); `run` still detaches.
TEST(Attach, SampledSessionsStayAttachedBetweenBursts) {
  std::string dir = fresh_dir("attach-sampled");
  auto env = dormant_env();
  env.erase("SYNCSCOPE_GPU_TIMELINE");
  env.erase("SYNCSCOPE_GPU_TIMELINE_SAMPLING");
  Started target = start({example("long_loop"), "6", "0"}, env);
  std::this_thread::sleep_for(500ms);
  for (int session = 0; session < 3; ++session) {
    RunResult r = attach({std::to_string(target.pid), "-d", "700ms", "-o", dir + "/s" + std::to_string(session),
                          "--gpu-timeline=100/300", "--no-report"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto traces = load_traces(dir + "/s" + std::to_string(session));
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].info("gpu_timeline.between_windows"), "attached, kinds off (an attach session)");
    EXPECT_FALSE(traces[0].gpu_activity.empty()) << "session " << session;
  }
  EXPECT_EQ(finish(target, 30).exit_code, 0);
}

TEST(Attach, RunDormantThenAttachAllByPattern) {
  std::string dir = fresh_dir("attach-all");
  // A duration no other test uses, so the pattern matches this run only.
  Started run_dormant =
      start({syncscope_bin(), "run", "--dormant", "--", example("long_loop"), "5", "23"}, fake_runtime_env());
  // Attach once the program runs with its recorder loaded (the launcher
  // names its pid), not after a fixed head start a loaded machine outlasts.
  ASSERT_TRUE(wait_for_text(run_dormant.err_path, "runs as pid", 15s)) << slurp(run_dormant.err_path);
  const std::string said = slurp(run_dormant.err_path);
  const size_t digits = said.find("runs as pid ") + std::string("runs as pid ").size();
  const std::string pid = said.substr(digits, said.find_first_not_of("0123456789", digits) - digits);
  ASSERT_TRUE(wait_for_text("/proc/" + pid + "/maps", "libcudart", 30s)) << pid;
  RunResult r = attach({"--all", "long_loop 5 23", "-d", "1s", "-o", dir + "/t"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The launcher's command line matches too, but it is no CUDA process.
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_GT(count_api(traces[0], ApiId::cudaStreamSynchronize), 100u);
  EXPECT_NE(r.out.find("long_loop_step"), std::string::npos) << r.out;
  RunResult own = finish(run_dormant, 30);
  EXPECT_EQ(own.exit_code, 23) << own.err;
  EXPECT_NE(own.err.find("syncscope attach"), std::string::npos) << own.err;
}

TEST(Attach, InjectsIntoAnUnpreparedProcessAndPutsItsImportSlotsBack) {
  std::string dir = fresh_dir("attach-inject");
  Started target = start({example("long_loop"), "10", "9"}, fake_runtime_env());
  std::this_thread::sleep_for(500ms);
  const std::string before = read_import_slots(target.pid, example("long_loop"));
  ASSERT_FALSE(before.empty());

  Started attaching = start({syncscope_bin(), "attach", std::to_string(target.pid), "-d", "2s", "-o", dir + "/t",
                             "--format", "json=" + dir + "/r.json", "--format", "text"},
                            fake_runtime_env());
  ASSERT_TRUE(wait_for_text(attaching.err_path, "recording process", 15s)) << slurp(attaching.err_path);
  const std::string during = read_import_slots(target.pid, example("long_loop"));
  RunResult r = finish(attaching, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string after = read_import_slots(target.pid, example("long_loop"));
  EXPECT_NE(during, before) << "while recording, the executable's CUDA imports must reach the hooks";
  EXPECT_EQ(after, before) << "every redirected slot must be put back exactly";
  EXPECT_NE(r.err.find("put back"), std::string::npos) << r.err;

  EXPECT_TRUE(still_running(target.pid));
  EXPECT_NE(r.out.find("attached: recorder injected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not seen when attached after the fact"), std::string::npos) << r.out;
  nlohmann::json report = read_json(dir + "/r.json");
  EXPECT_EQ(report["processes"][0]["attach"]["mode"], "injected");
  EXPECT_GT(report["processes"][0]["attach"]["redirected_slots"].get<int>(), 0);
  auto syncs = hidden_syncs(report);
  ASSERT_EQ(syncs.size(), 1u) << report.dump(1);
  EXPECT_EQ(syncs[0]["user_frame"]["function"].get<std::string>().rfind("long_loop_step", 0), 0u);

  // Attaching again reuses the recorder already inside (no second injection).
  r = attach({std::to_string(target.pid), "-d", "700ms", "-o", dir + "/t2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("recorder injected"), std::string::npos) << r.err;
  EXPECT_EQ(read_import_slots(target.pid, example("long_loop")), before);

  RunResult own = finish(target, 30);
  EXPECT_EQ(own.exit_code, 9) << own.err;
  EXPECT_NE(own.out.find("long_loop:"), std::string::npos);
}

TEST(Attach, ALibraryLoadedDuringTheSessionIsRedirectedAndPutBack) {
  std::string dir = fresh_dir("attach-late-plugin");
  std::string trigger = dir + "/load-now";
  Started target = start({SYNCSCOPE_LATE_PLUGIN_LOOP, "8", trigger, SYNCSCOPE_LATE_PLUGIN}, fake_runtime_env());
  std::this_thread::sleep_for(400ms);
  Started attaching = start({syncscope_bin(), "attach", std::to_string(target.pid), "-d", "2s", "-o", dir + "/t",
                             "--format", "json=" + dir + "/r.json"},
                            fake_runtime_env());
  ASSERT_TRUE(wait_for_text(attaching.err_path, "recording process", 15s)) << slurp(attaching.err_path);
  std::ofstream(trigger) << "go";  // the loop dlopens the plugin now, mid-session
  RunResult r = finish(attaching, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_GT(count_api(traces[0], ApiId::cudaDeviceSynchronize), 50u)
      << "the plugin's own import of cudaDeviceSynchronize must reach the hook";
  // More slots were put back than were redirected when the session began.
  int at_start = read_json(dir + "/r.json")["processes"][0]["attach"]["redirected_slots"].get<int>();
  size_t at = r.err.find(" import slot(s) put back");
  ASSERT_NE(at, std::string::npos) << r.err;
  int put_back = std::atoi(r.err.c_str() + r.err.rfind(' ', at - 1) + 1);
  EXPECT_GT(put_back, at_start) << r.err;
  RunResult own = finish(target, 30);
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_NE(own.out.find("with the plugin"), std::string::npos);
}

TEST(Attach, SeveralProcessesOneReport) {
  // One dormant, one unprepared: both reached, one report with both.
  std::string dir = fresh_dir("attach-several");
  Started dormant = start({example("long_loop"), "6", "5"}, dormant_env());
  Started plain = start({example("long_loop"), "6", "6"}, fake_runtime_env());
  std::this_thread::sleep_for(600ms);
  RunResult r = attach({std::to_string(dormant.pid), std::to_string(plain.pid), "-d", "1s", "-o", dir + "/t",
                        "--format", "json=" + dir + "/r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json report = read_json(dir + "/r.json");
  ASSERT_EQ(report["processes"].size(), 2u);
  std::set<std::string> modes;
  for (const auto& p : report["processes"]) modes.insert(p["attach"]["mode"].get<std::string>());
  EXPECT_EQ(modes, (std::set<std::string>{"dormant", "injected"}));
  EXPECT_EQ(finish(dormant, 30).exit_code, 5);
  EXPECT_EQ(finish(plain, 30).exit_code, 6);
}

TEST(Attach, CtrlCEndsTheRecordingAndStillReports) {
  std::string dir = fresh_dir("attach-ctrl-c");
  Started target = start({example("long_loop"), "8", "8"}, dormant_env());
  std::this_thread::sleep_for(500ms);
  Started attaching =
      start({syncscope_bin(), "attach", std::to_string(target.pid), "-o", dir + "/t"}, fake_runtime_env());
  ASSERT_TRUE(wait_for_text(attaching.err_path, "until Ctrl-C", 10s)) << slurp(attaching.err_path);
  std::this_thread::sleep_for(800ms);
  kill(attaching.pid, SIGINT);
  RunResult r = finish(attaching, 30);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("long_loop_step"), std::string::npos) << r.out;
  EXPECT_TRUE(still_running(target.pid));
  EXPECT_EQ(finish(target, 30).exit_code, 8);
}

TEST(Attach, AnotherTracerIsNamed) {
  Started target = start({example("long_loop"), "5"}, fake_runtime_env());
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(ptrace(PTRACE_SEIZE, target.pid, nullptr, nullptr), 0) << std::strerror(errno);
  RunResult r = attach({std::to_string(target.pid), "-d", "1s", "-o", fresh_dir("attach-traced") + "/t"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("another tracer"), std::string::npos) << r.err;
  ptrace(PTRACE_DETACH, target.pid, nullptr, nullptr);
  kill(target.pid, SIGKILL);
  finish(target, 30);
}

TEST(Attach, TargetExitingDuringTheRecordingLeavesAReadableTrace) {
  std::string dir = fresh_dir("attach-exit");
  Started target = start({example("long_loop"), "2", "4"}, fake_runtime_env());
  std::this_thread::sleep_for(400ms);
  auto begin = std::chrono::steady_clock::now();
  RunResult r = attach({std::to_string(target.pid), "-d", "60s", "-o", dir + "/t"});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(waited, 20.0) << "attach must end when its only target exits";
  EXPECT_NE(r.err.find("exited during the recording"), std::string::npos) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].complete) << traces[0].truncation;
  EXPECT_GT(count_api(traces[0], ApiId::cudaStreamSynchronize), 100u);
  EXPECT_EQ(finish(target, 30).exit_code, 4);
}

TEST(Attach, PythonLinesOfADormantProcess) {
  std::string dir = fresh_dir("attach-python");
  std::string script = SYNCSCOPE_SOURCE_DIR "/examples/python/ctypes_sync_loop.py";
  auto env = dormant_env();
  // The fake runtime answers in microseconds: 300k calls a second. Room
  // for them, so no copy is dropped from before its sync.
  env["SYNCSCOPE_RING_EVENTS"] = "262144";
  Started target = start({"/usr/bin/env", "python3", script, "100000000", "--release-gil"}, env);
  // python3 may be a wrapper script (pyenv's shim) that takes a while to
  // exec the interpreter: wait until the process has the runtime loaded.
  ASSERT_TRUE(wait_for_text("/proc/" + std::to_string(target.pid) + "/maps", "libcudart", 30s));
  std::this_thread::sleep_for(500ms);
  RunResult r =
      attach({std::to_string(target.pid), "-d", "1s", "-o", dir + "/t", "--format", "json=" + dir + "/r.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto syncs = hidden_syncs(read_json(dir + "/r.json"));
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0]["user_frame"]["file"], script);
  EXPECT_EQ(syncs[0]["user_frame"]["line"], 34);
  kill(target.pid, SIGTERM);
  finish(target, 30);
}

// Sessions one after the other hold only their own calls. A sync made
// just before a session stopped waits for its Python frames until the
// thread next releases the GIL (here after 0.7 s of pure Python), which
// falls in the next session: it came into that one (an H200 trace began
// "-6.93 s after the recording began").
TEST(Attach, ACallOfAnEarlierSessionNeverComesIntoTheNext) {
  std::string dir = fresh_dir("attach-sessions");
  Started target = start({"/usr/bin/env", "python3", "-c",
                          "import ctypes, time\n"
                          "ctypes.CDLL('libcudart.so.13', mode=ctypes.RTLD_GLOBAL)\n"
                          "cuda = ctypes.PyDLL(None)  # the call keeps the GIL, as torch's .item() does\n"
                          "while True:\n"
                          "    cuda.cudaDeviceSynchronize()\n"
                          "    end = time.monotonic() + 0.7\n"
                          "    while time.monotonic() < end: pass\n"
                          "    time.sleep(0)  # the GIL's release completes the pending call\n"},
                         dormant_env());
  ASSERT_TRUE(wait_for_text("/proc/" + std::to_string(target.pid) + "/maps", "libcudart", 30s));
  std::this_thread::sleep_for(500ms);
  for (int session = 0; session < 4; ++session) {
    const std::string out = dir + "/s" + std::to_string(session);
    RunResult r = attach({std::to_string(target.pid), "-d", "1s", "--no-report", "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto traces = load_traces(out);
    ASSERT_EQ(traces.size(), 1u);
    for (const Event& e : traces[0].events) {
      EXPECT_GE(e.start_ns, traces[0].header.start_monotonic_ns) << "session " << session << ": a call of an earlier one";
    }
  }
  kill(target.pid, SIGKILL);
  finish(target, 30);
}

// A raw client of @syncscope.<pid>: sends each line, returns each reply.
// @syncscope.<pid>, the abstract name of a process's control endpoint.
sockaddr_un endpoint_address(int pid, socklen_t* size) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string name = control::socket_name(pid);
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  *size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return address;
}

int connect_endpoint(int pid) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t size = 0;
  sockaddr_un address = endpoint_address(pid, &size);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), size) != 0) {
    close(fd);
    return -1;
  }
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  return fd;
}

std::string request_line(int fd, const std::string& line) {
  std::string out = line + "\n";
  if (send(fd, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) return "send failed";
  std::string reply;
  char c;
  while (recv(fd, &c, 1, 0) == 1 && c != '\n') reply += c;
  return reply;
}

TEST(Attach, AClientThatGoesAwayEndsItsSession) {
  std::string dir = fresh_dir("attach-vanish");
  Started target = start({example("long_loop"), "8"}, dormant_env());
  std::this_thread::sleep_for(400ms);
  int fd = connect_endpoint(target.pid);
  ASSERT_GE(fd, 0);
  // Lines as `syncscope attach` writes them (trace/control_protocol.h).
  auto ask = [&](control::Command command, const std::string& output_dir = "") {
    std::string line = request_line(fd, control::encode(control::Request{command, output_dir}));
    std::optional<control::Reply> reply = control::parse_reply(line);
    EXPECT_TRUE(reply.has_value()) << line;
    return reply.value_or(control::Reply{false, "unreadable: " + line, {}});
  };
  control::Reply hello = ask(control::Command::kHello);
  control::HelloReply about;
  ASSERT_TRUE(hello.ok && control::decode(hello.message, &about)) << hello.error;
  EXPECT_EQ(about.protocol, control::kProtocolVersion);
  EXPECT_EQ(about.pid, target.pid);
  EXPECT_EQ(about.mode, "dormant");
  EXPECT_FALSE(about.recording);
  control::Reply relative = ask(control::Command::kStart, "relative/dir");
  EXPECT_FALSE(relative.ok);
  EXPECT_NE(relative.error.find("absolute"), std::string::npos) << relative.error;
  control::Reply start = ask(control::Command::kStart, dir);
  control::StartReply started;
  ASSERT_TRUE(start.ok && control::decode(start.message, &started)) << start.error;
  EXPECT_EQ(started.trace.rfind(dir + "/", 0), 0u) << started.trace;
  EXPECT_FALSE(ask(control::Command::kStart, dir).ok) << "one session at a time";
  std::optional<control::Reply> bogus = control::parse_reply(request_line(fd, "bogus"));
  ASSERT_TRUE(bogus.has_value());
  EXPECT_FALSE(bogus->ok);
  EXPECT_EQ(bogus->error.rfind("unknown command", 0), 0u) << bogus->error;
  // flush: what was recorded so far is on disk when the reply comes. The
  // target's pace depends on the machine's load (about 1 ms a step when
  // idle): ask again until 50 steps are in, for at most 10 s.
  std::vector<ProcessTrace> flushed;
  auto deadline = std::chrono::steady_clock::now() + 10s;
  do {
    std::this_thread::sleep_for(300ms);
    EXPECT_TRUE(ask(control::Command::kFlush).ok);
    flushed = load_traces(dir);
    ASSERT_EQ(flushed.size(), 1u);
  } while (count_api(flushed[0], ApiId::cudaStreamSynchronize) <= 50u && std::chrono::steady_clock::now() < deadline);
  EXPECT_GT(count_api(flushed[0], ApiId::cudaStreamSynchronize), 50u);
  EXPECT_FALSE(flushed[0].complete) << "still recording: no end record yet";
  std::this_thread::sleep_for(200ms);
  close(fd);  // as if attach were killed: the process must stop recording by itself
  std::this_thread::sleep_for(700ms);
  auto traces = load_traces(dir);
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_TRUE(traces[0].complete) << "the session must end (and its trace close) when its client vanishes";
  size_t recorded = traces[0].events.size();
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(load_traces(dir)[0].events.size(), recorded) << "nothing may be recorded after the session ended";
  EXPECT_TRUE(still_running(target.pid));
  kill(target.pid, SIGTERM);
  finish(target, 30);
}

TEST(Attach, EndpointServesOnlyItsOwnUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to try as another user";
  Started target = start({example("long_loop"), "5"}, dormant_env());
  std::this_thread::sleep_for(400ms);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    int fd = connect_endpoint(target.pid);
    std::string reply = fd < 0 ? "connect failed" : request_line(fd, "hello");
    ssize_t ignored = write(pipe_fds[1], reply.data(), reply.size());
    (void)ignored;
    _exit(0);
  }
  close(pipe_fds[1]);
  char buffer[256] = {};
  ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer) - 1);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::string reply(buffer, n > 0 ? static_cast<size_t>(n) : 0);
  EXPECT_NE(reply.find("not permitted"), std::string::npos) << reply;
  kill(target.pid, SIGTERM);
  finish(target, 30);
}

// Issue 24: abstract socket names belong to nobody. A process (here the
// test) that bound @syncscope.<pid> before the target did is never talked
// to, and nothing is injected into the target.
TEST(Attach, AnImpostorHoldingTheNameIsNeverTalkedTo) {
  std::string dir = fresh_dir("attach-impostor");
  Started target = start({example("long_loop"), "20"}, fake_runtime_env());
  const std::string maps = "/proc/" + std::to_string(target.pid) + "/maps";
  ASSERT_TRUE(wait_for_text(maps, "libcudart", 30s));
  int impostor = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  socklen_t size = 0;
  sockaddr_un address = endpoint_address(target.pid, &size);
  ASSERT_EQ(bind(impostor, reinterpret_cast<sockaddr*>(&address), size), 0);
  ASSERT_EQ(listen(impostor, 4), 0);
  RunResult r = attach({std::to_string(target.pid), "-d", "1s", "-o", dir + "/a"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("held by process " + std::to_string(getpid())), std::string::npos) << r.err;
  // The client connected, saw who answered, and said nothing.
  std::string heard;
  for (int client; (client = accept(impostor, nullptr, nullptr)) >= 0; close(client)) {
    char buffer[256];
    ssize_t n;
    while ((n = recv(client, buffer, sizeof(buffer), MSG_DONTWAIT)) > 0) heard.append(buffer, static_cast<size_t>(n));
  }
  EXPECT_EQ(heard, "") << "the client talked to the impostor";
  close(impostor);
  EXPECT_EQ(slurp(maps).find("libsyncscope"), std::string::npos) << "injected although refused";
  EXPECT_TRUE(still_running(target.pid));
  kill(target.pid, SIGKILL);
  finish(target);
}

// Another user's process: refused before anything is injected (it
// injected, was refused by the endpoint, and left the library, its thread
// and socket in the target). Root may attach to it: the recorder serves
// root too, and the directory root makes is handed to the process's user,
// who writes the traces.
TEST(Attach, AnotherUsersProcessIsRefusedBeforeInjectingButRootMayAttach) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run processes as another user";
  if (access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs setpriv (util-linux)";
  const std::vector<std::string> as_nobody = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  std::string dir = fresh_dir("attach-other-user");
  chmod(dir.c_str(), 0777);

  // uid 65534 attaching to root's process: refused, nothing injected.
  Started mine = start({example("long_loop"), "20"}, fake_runtime_env());
  const std::string my_maps = "/proc/" + std::to_string(mine.pid) + "/maps";
  ASSERT_TRUE(wait_for_text(my_maps, "libcudart", 30s));
  std::vector<std::string> argv = as_nobody;
  argv.insert(argv.end(), {syncscope_bin(), "attach", std::to_string(mine.pid), "-d", "1s", "-o", dir + "/by-nobody"});
  RunResult r = run(argv, fake_runtime_env(), 120);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("attaches only to your own processes"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(my_maps).find("libsyncscope"), std::string::npos) << "injected although refused";
  EXPECT_TRUE(still_running(mine.pid));
  kill(mine.pid, SIGKILL);
  finish(mine);

  // Root attaching to uid 65534's process: recorded, traces written as it.
  argv = as_nobody;
  argv.insert(argv.end(), {example("long_loop"), "20"});
  Started theirs = start(argv, fake_runtime_env());
  const std::string their_maps = "/proc/" + std::to_string(theirs.pid) + "/maps";
  if (!wait_for_text(their_maps, "libcudart", 30s)) {
    kill(theirs.pid, SIGKILL);
    finish(theirs);
    GTEST_SKIP() << "uid 65534 cannot run the example from this build directory";
  }
  r = attach({std::to_string(theirs.pid), "-d", "1s", "--no-report", "-o", dir + "/by-root"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/by-root");
  ASSERT_EQ(traces.size(), 1u) << r.err;
  EXPECT_GT(traces[0].events.size(), 0u);
  struct stat st;
  ASSERT_EQ(stat(traces[0].file.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_TRUE(still_running(theirs.pid));
  kill(theirs.pid, SIGKILL);
  finish(theirs);
}

// Twelve connections of another user, each dripping a byte every 150 ms:
// refused within moments each, so the owner's 1 s attach stays about 1 s
// (it took 11 s).
TEST(Attach, ForeignConnectionsDoNotDelayTheOwner) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to connect as another user";
  std::string dir = fresh_dir("attach-drip");
  Started target = start({example("long_loop"), "30"}, dormant_env());
  std::this_thread::sleep_for(400ms);
  std::vector<pid_t> drippers;
  for (int k = 0; k < 12; ++k) {
    pid_t child = fork();
    if (child == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
      int fd = connect_endpoint(target.pid);
      for (int drip = 0; fd >= 0 && drip < 40; ++drip) {
        if (send(fd, "h", 1, MSG_NOSIGNAL) != 1) break;
        usleep(150000);
      }
      _exit(0);
    }
    drippers.push_back(child);
  }
  std::this_thread::sleep_for(200ms);
  const auto began = std::chrono::steady_clock::now();
  RunResult r = attach({std::to_string(target.pid), "-d", "1s", "--no-report", "-o", dir + "/a"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(took, 5.0) << r.err;
  for (pid_t child : drippers) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
  }
  kill(target.pid, SIGTERM);
  finish(target, 30);
}

// A session that recorded nothing is a recording problem: a gate fails
// closed (exit 4) and the report says so; it never reads as a clean run.
TEST(Attach, ASessionThatRecordedNothingFailsAnyGate) {
  std::string dir = fresh_dir("attach-empty");
  Started target = start({"/usr/bin/env", "python3", "-c",
                          "import ctypes, time\n"
                          "ctypes.CDLL('libcudart.so.13', mode=ctypes.RTLD_GLOBAL)\n"
                          "ctypes.CDLL(None).cudaDeviceSynchronize()\n"
                          "time.sleep(30)\n"},
                         dormant_env());
  ASSERT_TRUE(wait_for_text("/proc/" + std::to_string(target.pid) + "/maps", "libcudart", 30s));
  std::this_thread::sleep_for(300ms);
  RunResult r = attach({std::to_string(target.pid), "-d", "1s", "--fail-on", "hidden-sync", "--format",
                        "json=" + dir + "/r.json", "-o", dir + "/a"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("the attach session recorded no CUDA call"), std::string::npos) << r.err;
  nlohmann::json json = read_json(dir + "/r.json");
  bool said = false;
  for (const auto& p : json["recording"]["problems"]) said = said || p["kind"] == "session-empty";
  EXPECT_TRUE(said) << json["recording"].dump(1);
  r = attach({std::to_string(target.pid), "-d", "1s", "--no-report", "-o", dir + "/b"});
  EXPECT_EQ(r.exit_code, 0) << "without a gate: said, not failed\n" << r.err;
  EXPECT_NE(r.err.find("recorded no CUDA call"), std::string::npos) << r.err;
  kill(target.pid, SIGKILL);
  finish(target);
}

TEST(Attach, RefusalsSayWhy) {
  std::string dir = fresh_dir("attach-refusals");
  // A pid that existed and is gone.
  RunResult gone = run({"/bin/true"});
  Started briefly = start({"/bin/true"});
  int dead_pid = briefly.pid;
  finish(briefly);
  (void)gone;
  RunResult r = attach({std::to_string(dead_pid), "-d", "1s", "-o", dir + "/a"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such process"), std::string::npos) << r.err;

  Started sleeper = start({"/bin/sleep", "30"});
  r = attach({std::to_string(sleeper.pid), "-d", "1s", "-o", dir + "/b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a CUDA process"), std::string::npos) << r.err;
  kill(sleeper.pid, SIGKILL);
  finish(sleeper);

  Started unprepared = start({example("long_loop"), "20"}, fake_runtime_env());
  // A CUDA process once its runtime is mapped (a fixed wait was too short on a loaded machine).
  ASSERT_TRUE(wait_for_text("/proc/" + std::to_string(unprepared.pid) + "/maps", "libcudart", 30s));
  r = attach({std::to_string(unprepared.pid), "-d", "1s", "--no-inject", "-o", dir + "/c"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-inject"), std::string::npos) << r.err;
  EXPECT_TRUE(still_running(unprepared.pid));
  kill(unprepared.pid, SIGKILL);
  finish(unprepared);

  // Already recording under `syncscope run`: its report comes at its exit.
  Started recorded = start({syncscope_bin(), "run", "--no-report", "-o", dir + "/d", "--", example("long_loop"), "20"},
                           fake_runtime_env());
  // Recording once the child has called CUDA: its trace file exists.
  for (auto waited = 0ms; waited < 30s && !has_trace_file(dir + "/d"); waited += 50ms) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(has_trace_file(dir + "/d"));
  std::vector<std::string> children;
  r = attach({"--all", "long_loop 20", "-d", "1s", "-o", dir + "/e"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already has the recorder"), std::string::npos) << r.err;
  kill(recorded.pid, SIGTERM);
  finish(recorded);

  r = attach({"1", "--duration", "soon"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a duration"), std::string::npos) << r.err;
  r = attach({"--all", "no-process-has-this-in-its-command-line-3f9a"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no process"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace syncscope::testing
