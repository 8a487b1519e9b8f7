// Helpers for end-to-end tests: run a command with extra environment, collect
// its exit status and output, and load the traces it left behind.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "trace/api.h"
#include "trace/reader.h"

namespace syncscope::testing {

struct RunResult {
  int exit_code = -1;  // exit status, or 128+signal
  std::string out;     // stdout
  std::string err;     // stderr
};

// A started child whose output goes to files.
struct Started {
  int pid = -1;
  std::string out_path;
  std::string err_path;
};

// Starts argv with the current environment plus `env` (K -> V, overriding).
Started start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});
// Waits for it; kills it after timeout_s seconds (the test then fails).
RunResult finish(const Started& started, int timeout_s = 120);
// start + finish.
RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
              int timeout_s = 120);

// A fresh, empty directory under the test temp dir.
std::string fresh_dir(const std::string& name);
// A file's whole contents ("" when it cannot be read).
std::string slurp(const std::string& path);

// Environment that makes examples use the fake runtime.
std::map<std::string, std::string> fake_runtime_env();

std::string example(const std::string& name);
std::string syncscope_bin();
std::string preload_path();

// Every trace in dir, read; fails the test on a read error.
std::vector<ProcessTrace> load_traces(const std::string& dir);

// Records one example (`syncscope run --no-report`) against the fake runtime
// and returns its single, complete trace (test failures otherwise).
ProcessTrace record_one(const std::string& name, const std::vector<std::string>& args);

// The line of `script` (a file as Python recorded it) in a stack's Python
// frames, innermost first (0: none, or no Python frames).
uint32_t python_line(const ProcessTrace& trace, uint32_t stack, const std::string& script);

// For checks that compare runs of their own, timed or split by timing (a
// step's length, where a phase ends): a machine busy with other work (CI's
// neighbours) stretches one run and not another. Each attempt makes its runs
// afresh and returns what fell short (empty when everything held); a test
// failure inside one (a setup failure: a run that did not exit 0, a missing
// trace) ends it at once. The test fails only where every attempt falls
// short, listing each: a wrong result falls short every time.
void expect_an_attempt_holds(const std::function<std::vector<std::string>()>& attempt, int attempts = 3);

// Count of events of one API in a trace.
size_t count_api(const ProcessTrace& trace, ApiId api);
std::vector<Event> events_of(const ProcessTrace& trace, ApiId api);

}  // namespace syncscope::testing
