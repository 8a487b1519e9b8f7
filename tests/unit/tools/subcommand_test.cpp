// How main meets the subcommands (tools/subcommand.h): a subcommand added
// with its options and callback, as each tools/<name>_command.cpp does.
#include "tools/subcommand.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace syncscope {
namespace {

struct Seen {
  bool ran = false;
  int level = 0;
  std::vector<std::string> remaining;
  std::vector<std::string> after_dashes;
};

// A subcommand like `run`: an option, a program after "--", exit status 7.
void add_launch(CLI::App& app, SubcommandContext& context, std::shared_ptr<Seen> seen) {
  CLI::App* cmd = app.add_subcommand("launch", "Start a program");
  cmd->add_option("--level", seen->level)->check(CLI::Range(0, 9));
  cmd->prefix_command();
  context.take_program_after_dashes.insert("launch");
  cmd->callback([seen, cmd, &context] {
    seen->ran = true;
    seen->remaining = cmd->remaining();
    seen->after_dashes = context.program_after_dashes;
    context.exit_status = 7;
  });
}

// A subcommand that takes no program: "--" is CLI11's to parse.
void add_show(CLI::App& app, SubcommandContext& context, std::shared_ptr<Seen> seen) {
  CLI::App* cmd = app.add_subcommand("show", "Show something");
  cmd->add_option("what", seen->remaining);
  cmd->callback([seen, &context] {
    seen->ran = true;
    context.exit_status = 0;
  });
}

int parse(std::vector<std::string> words, std::shared_ptr<Seen> launch, std::shared_ptr<Seen> show) {
  CLI::App app{"test"};
  app.require_subcommand(1);
  SubcommandContext context;
  add_launch(app, context, launch);
  add_show(app, context, show);
  words.insert(words.begin(), "syncscope");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return parse_and_run(app, context, static_cast<int>(argv.size()), argv.data());
}

TEST(Subcommand, OnlyTheGivenSubcommandRunsAndItsStatusIsReturned) {
  auto launch = std::make_shared<Seen>(), show = std::make_shared<Seen>();
  EXPECT_EQ(parse({"launch", "--level", "3", "--", "prog", "--level", "5", "--"}, launch, show), 7);
  EXPECT_TRUE(launch->ran);
  EXPECT_FALSE(show->ran);
  EXPECT_EQ(launch->level, 3);
  EXPECT_TRUE(launch->remaining.empty());
  EXPECT_EQ(launch->after_dashes, (std::vector<std::string>{"prog", "--level", "5", "--"}));
}

TEST(Subcommand, AProgramWithoutDashesIsLeftToTheSubcommand) {
  auto launch = std::make_shared<Seen>(), show = std::make_shared<Seen>();
  EXPECT_EQ(parse({"launch", "prog", "-x"}, launch, show), 7);
  EXPECT_EQ(launch->remaining, (std::vector<std::string>{"prog", "-x"}));
  EXPECT_TRUE(launch->after_dashes.empty());
}

TEST(Subcommand, DashesOfOtherSubcommandsAreParsedAsUsual) {
  auto launch = std::make_shared<Seen>(), show = std::make_shared<Seen>();
  EXPECT_EQ(parse({"show", "--", "-x"}, launch, show), 0);
  EXPECT_TRUE(show->ran);
  EXPECT_EQ(show->remaining, (std::vector<std::string>{"-x"}));
}

TEST(Subcommand, UsageErrorsAreTwoAndRunNothing) {
  for (std::vector<std::string> words : std::vector<std::vector<std::string>>{
           {}, {"bogus"}, {"launch", "--level", "12", "--", "prog"}, {"show", "--nope"}}) {
    auto launch = std::make_shared<Seen>(), show = std::make_shared<Seen>();
    EXPECT_EQ(parse(words, launch, show), kUsageExitCode) << ::testing::PrintToString(words);
    EXPECT_FALSE(launch->ran);
    EXPECT_FALSE(show->ran);
  }
}

TEST(Subcommand, HelpIsZeroAndRunsNothing) {
  auto launch = std::make_shared<Seen>(), show = std::make_shared<Seen>();
  ::testing::internal::CaptureStdout();
  int status = parse({"launch", "--help"}, launch, show);
  std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0);
  EXPECT_FALSE(launch->ran);
  EXPECT_NE(help.find("--level"), std::string::npos) << help;
}

}  // namespace
}  // namespace syncscope
