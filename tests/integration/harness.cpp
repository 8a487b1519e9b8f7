#include "tests/integration/harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

extern char** environ;

namespace syncscope::testing {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Started start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  std::string dir = fresh_dir("run-output");
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) merged[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);

  pid_t pid = fork();
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  return Started{pid, out_path, err_path};
}

RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, int timeout_s) {
  return finish(start(argv, env), timeout_s);
}

RunResult finish(const Started& started, int timeout_s) {
  const pid_t pid = started.pid;
  RunResult result;
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "timed out: pid " << pid;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(started.out_path);
  result.err = slurp(started.err_path);
  return result;
}

std::string fresh_dir(const std::string& name) {
  static int counter = 0;
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/syncscope-e2e-" + std::to_string(getpid()) + "-" + name +
                    "-" + std::to_string(counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::map<std::string, std::string> fake_runtime_env() {
  // The GPU timeline is opt-in; the fake CUPTI runs in every end-to-end test.
  return {{"LD_LIBRARY_PATH", SYNCSCOPE_FAKECUDA_DIR},
          {"SYNCSCOPE_GPU_TIMELINE", "1"},
          {"SYNCSCOPE_GPU_TIMELINE_SAMPLING", "full"}};
}

std::string example(const std::string& name) { return std::string(SYNCSCOPE_EXAMPLES_DIR) + "/" + name; }
std::string syncscope_bin() { return SYNCSCOPE_BIN; }
std::string preload_path() { return SYNCSCOPE_PRELOAD; }

std::vector<ProcessTrace> load_traces(const std::string& dir) {
  std::vector<ProcessTrace> traces;
  auto files = list_trace_files(dir);
  EXPECT_TRUE(files.ok()) << files.status();
  if (!files.ok()) return traces;
  for (const auto& file : *files) {
    auto trace = read_trace_file(file);
    EXPECT_TRUE(trace.ok()) << trace.status();
    if (trace.ok()) traces.push_back(std::move(*trace));
  }
  return traces;
}

size_t count_api(const ProcessTrace& trace, ApiId api) {
  size_t n = 0;
  for (const Event& e : trace.events) n += e.api == static_cast<uint16_t>(api);
  return n;
}

std::vector<Event> events_of(const ProcessTrace& trace, ApiId api) {
  std::vector<Event> out;
  for (const Event& e : trace.events) {
    if (e.api == static_cast<uint16_t>(api)) out.push_back(e);
  }
  return out;
}

ProcessTrace record_one(const std::string& name, const std::vector<std::string>& args) {
  std::string dir = fresh_dir(name);
  std::vector<std::string> argv = {syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv, fake_runtime_env());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  EXPECT_EQ(traces.size(), 1u);
  if (traces.empty()) return {};
  EXPECT_TRUE(traces[0].complete) << traces[0].truncation;
  EXPECT_EQ(traces[0].events_dropped, 0u);
  EXPECT_EQ(traces[0].info("cuda_runtime"), "fake (simulated GPU)");
  return std::move(traces[0]);
}

uint32_t python_line(const ProcessTrace& trace, uint32_t stack, const std::string& script) {
  auto it = trace.python_stacks.find(stack);
  if (it == trace.python_stacks.end()) return 0;
  for (const PythonFrame& frame : it->second) {
    auto code = trace.python_code.find(frame.code_id);
    if (code != trace.python_code.end() && code->second.file == script) return frame.line;
  }
  return 0;
}

void expect_an_attempt_holds(const std::function<std::vector<std::string>()>& attempt, int attempts) {
  std::string misses;
  for (int i = 1; i <= attempts; ++i) {
    const std::vector<std::string> short_of = attempt();
    if (::testing::Test::HasFailure()) return;  // setup, not timing
    if (short_of.empty()) return;
    for (const std::string& s : short_of) misses += "\n  attempt " + std::to_string(i) + ": " + s;
  }
  ADD_FAILURE() << "every attempt fell short:" << misses;
}

}  // namespace syncscope::testing
