// A module rebuilt between recording and report: the trace carries each
// module's build-id (docs/trace-format.md, kModuleBuildId), and `syncscope
// report` must notice that the file on disk is another build, say so once,
// and not name functions from it, while still printing the report.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "elf/elf_file.h"
#include "tests/integration/harness.h"

namespace syncscope::testing {
namespace {

namespace fs = std::filesystem;

std::string build_id_of(const std::string& path) {
  elf::ElfFile file;
  EXPECT_EQ(file.open(path), elf::ElfFile::Status::kOk) << file.error();
  char hex[2 * elf::BuildId::kMaxSize + 1];
  return elf::build_id_hex(file.image().build_id(), hex, sizeof(hex));
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ModuleChanged, AnExecutableReplacedAfterTheRecordingIsReportedUnsymbolized) {
  const std::string dir = fresh_dir("module-changed");
  // A copy of the example, so the test can replace it.
  const std::string program = fs::canonical(dir).string() + "/hidden_sync_loop";
  fs::copy_file(example("hidden_sync_loop"), program);
  const std::string recorded_id = build_id_of(program);
  ASSERT_FALSE(recorded_id.empty());
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", program, "30"}, fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // The recorder wrote the executable's build-id, read from its loaded image.
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  const Module* recorded = nullptr;
  for (const Module& m : traces[0].modules) {
    if (m.path == program) recorded = &m;
  }
  ASSERT_NE(recorded, nullptr);
  EXPECT_EQ(recorded->build_id, recorded_id);

  // The same file: named as always, no warning.
  RunResult same = run({syncscope_bin(), "report", dir + "/t"}, fake_runtime_env());
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("read_loss_value"), std::string::npos) << same.out;
  EXPECT_EQ(same.err.find("is not the file that was recorded"), std::string::npos) << same.err;

  // Another build at the same path (another example: another build-id).
  fs::copy_file(example("pageable_copy_loop"), program + ".new");
  fs::rename(program + ".new", program);
  ASSERT_NE(build_id_of(program), recorded_id);
  RunResult changed = run({syncscope_bin(), "report", dir + "/t"}, fake_runtime_env());
  EXPECT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_EQ(occurrences(changed.err, program + " is not the file that was recorded (build-id " + recorded_id), 1u)
      << changed.err;
  // The report is still there, its frames in the program as module+offset,
  // none named from the wrong build.
  EXPECT_NE(changed.out.find("hidden-sync"), std::string::npos) << changed.out;
  EXPECT_NE(changed.out.find("hidden_sync_loop+0x"), std::string::npos) << changed.out;
  EXPECT_EQ(changed.out.find("read_loss_value"), std::string::npos) << changed.out;
  EXPECT_EQ(changed.out.find("upload_batch"), std::string::npos) << changed.out;
}

}  // namespace
}  // namespace syncscope::testing
