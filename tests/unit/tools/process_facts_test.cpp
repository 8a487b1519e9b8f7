#include "tools/process_facts.h"

#include <elf.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace syncscope {
namespace {

TEST(ProcessFacts, DescribesThisProcess) {
  auto facts = inspect_process(getpid());
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->uid, getuid());
  EXPECT_FALSE(facts->cuda_loaded);
  EXPECT_FALSE(facts->recorder_loaded);
  EXPECT_NE(facts->command_line.find("tools_unit_tests"), std::string::npos) << facts->command_line;
#if defined(__x86_64__)
  EXPECT_EQ(facts->machine, EM_X86_64);
#endif
  // Not a CUDA process: refused, saying so.
  absl::Status why = check_attachable(*facts);
  EXPECT_FALSE(why.ok());
  EXPECT_NE(std::string(why.message()).find("not a CUDA process"), std::string::npos) << why;
}

TEST(ProcessFacts, RefusesAnotherArchitectureOrUser) {
  ProcessFacts facts;
  facts.pid = 4242;
  facts.uid = getuid();
  facts.cuda_loaded = true;
  facts.command_line = "python3 train.py";
#if defined(__x86_64__)
  facts.machine = EM_AARCH64;
  absl::Status why = check_attachable(facts);
  EXPECT_NE(std::string(why.message()).find("is aarch64 but this syncscope is x86-64"), std::string::npos) << why;
#endif
  facts.machine = 0;  // unknown: not held against it
  EXPECT_TRUE(check_attachable(facts).ok());
  if (geteuid() != 0) {
    facts.uid = geteuid() + 1;
    EXPECT_EQ(check_attachable(facts).code(), absl::StatusCode::kPermissionDenied);
  }
}

TEST(ProcessFacts, NoSuchProcess) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  auto facts = inspect_process(child);
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(std::string(facts.status().message()).find("no such process"), std::string::npos);
  EXPECT_FALSE(inspect_process(-1).ok());
}

TEST(ProcessFacts, FindsProcessesByCommandLineButNeverItselfOrItsParents) {
  pid_t child = fork();
  if (child == 0) {
    execl("/bin/sleep", "sleep", "7.31459", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<pid_t> found;
  for (int i = 0; i < 100 && found.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    found = find_processes("sleep 7.31459");
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(found, std::vector<pid_t>{child});
  std::vector<pid_t> mine = find_processes("tools_unit_tests");
  EXPECT_EQ(std::count(mine.begin(), mine.end(), getpid()), 0);
}

}  // namespace
}  // namespace syncscope
