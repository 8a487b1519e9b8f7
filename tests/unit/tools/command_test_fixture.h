// The built syncscope executable run as a user would, for the tests of its
// commands: a scratch directory per test, the command's standard output and
// error captured in files there, its exit status or signal.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace syncscope::testing {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct CommandResult {
  int exit_code = -1;  // -1: killed by a signal (then `signal` is set)
  int signal = 0;
  std::string out, err;
};

// `prefix` names the scratch directories (TempDir/<prefix>_<pid>_<test>);
// `preload`, when given, is set as SYNCSCOPE_PRELOAD for the command.
class CommandTest : public ::testing::Test {
 protected:
  explicit CommandTest(std::string prefix, std::string preload = "")
      : prefix_(std::move(prefix)), preload_(std::move(preload)) {}

  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) / (prefix_ + "_" + std::to_string(getpid()) + "_" +
                                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Starts syncscope ARGS; returns its pid.
  pid_t start(const std::vector<std::string>& args) {
    std::vector<std::string> copy = {SYNCSCOPE_BIN};
    copy.insert(copy.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string out = path("stdout"), err = path("stderr");
    pid_t pid = fork();
    if (pid == 0) {
      if (!preload_.empty()) setenv("SYNCSCOPE_PRELOAD", preload_.c_str(), 1);
      int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      execv(argv[0], argv.data());
      _exit(99);
    }
    return pid;
  }

  CommandResult wait_for(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    CommandResult r;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = slurp(path("stdout"));
    r.err = slurp(path("stderr"));
    return r;
  }

  CommandResult run(const std::vector<std::string>& args) { return wait_for(start(args)); }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
  std::string preload_;
};

}  // namespace syncscope::testing
