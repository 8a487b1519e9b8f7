#include "tools/child_environment.h"
#include "tools/sanitizer_runtimes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace syncscope {
namespace {

bool has(const std::vector<std::string>& env, const std::string& kv) {
  return std::find(env.begin(), env.end(), kv) != env.end();
}

RecorderSettings settings() { return RecorderSettings{"/opt/s/lib/libsyncscope.so", "/tmp/trace", {}, {}, true}; }

TEST(ChildEnvironment, AddsPreloadAndOutputDir) {
  auto env = child_environment({"PATH=/bin", "HOME=/root"}, settings());
  EXPECT_TRUE(has(env, "PATH=/bin"));
  EXPECT_TRUE(has(env, "LD_PRELOAD=/opt/s/lib/libsyncscope.so"));
  EXPECT_TRUE(has(env, "SYNCSCOPE_OUTPUT_DIR=/tmp/trace"));
  EXPECT_FALSE(
      std::any_of(env.begin(), env.end(), [](const std::string& s) { return s.rfind("SYNCSCOPE_STACKS", 0) == 0; }));
}

TEST(ChildEnvironment, ThePreloadTakesNvtxUnlessAnotherToolDoes) {
  auto env = child_environment({"PATH=/bin"}, settings());
  EXPECT_TRUE(has(env, "NVTX_INJECTION64_PATH=/opt/s/lib/libsyncscope.so"));
  auto nsys = child_environment({"NVTX_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"}, settings());
  EXPECT_TRUE(has(nsys, "NVTX_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"));
  EXPECT_FALSE(has(nsys, "NVTX_INJECTION64_PATH=/opt/s/lib/libsyncscope.so"));
  auto empty = child_environment({"NVTX_INJECTION64_PATH="}, settings());
  EXPECT_TRUE(has(empty, "NVTX_INJECTION64_PATH=/opt/s/lib/libsyncscope.so"));
}

TEST(ChildEnvironment, PrependsToExistingPreloadOnce) {
  auto env = child_environment({"LD_PRELOAD=libjemalloc.so"}, settings());
  EXPECT_TRUE(has(env, "LD_PRELOAD=/opt/s/lib/libsyncscope.so:libjemalloc.so"));
  auto again = child_environment({"LD_PRELOAD=libjemalloc.so /opt/s/lib/libsyncscope.so"}, settings());
  EXPECT_TRUE(has(again, "LD_PRELOAD=libjemalloc.so /opt/s/lib/libsyncscope.so"));
  auto empty = child_environment({"LD_PRELOAD="}, settings());
  EXPECT_TRUE(has(empty, "LD_PRELOAD=/opt/s/lib/libsyncscope.so"));
}

TEST(ChildEnvironment, OptionsOverrideTheUsersSettings) {
  RecorderSettings s = settings();
  s.flush_ms = 20;
  s.ring_events = 4096;
  s.stacks = false;
  auto env = child_environment({"SYNCSCOPE_OUTPUT_DIR=/old", "SYNCSCOPE_DISABLE=1", "SYNCSCOPE_FLUSH_MS=999"}, s);
  EXPECT_TRUE(has(env, "SYNCSCOPE_OUTPUT_DIR=/tmp/trace"));
  EXPECT_FALSE(has(env, "SYNCSCOPE_OUTPUT_DIR=/old"));
  EXPECT_FALSE(has(env, "SYNCSCOPE_DISABLE=1"));
  EXPECT_TRUE(has(env, "SYNCSCOPE_FLUSH_MS=20"));
  EXPECT_FALSE(has(env, "SYNCSCOPE_FLUSH_MS=999"));
  EXPECT_TRUE(has(env, "SYNCSCOPE_RING_EVENTS=4096"));
  EXPECT_TRUE(has(env, "SYNCSCOPE_STACKS=0"));
}

TEST(ChildEnvironment, GpuTimelineTurnsCuptiOn) {
  auto by_default = child_environment({}, settings());
  EXPECT_FALSE(std::any_of(by_default.begin(), by_default.end(),
                           [](const std::string& s) { return s.rfind("SYNCSCOPE_GPU_TIMELINE", 0) == 0; }));
  RecorderSettings s = settings();
  s.gpu_timeline = true;
  auto env = child_environment({"SYNCSCOPE_GPU_TIMELINE=0"}, s);
  EXPECT_TRUE(has(env, "SYNCSCOPE_GPU_TIMELINE=1"));
  EXPECT_FALSE(has(env, "SYNCSCOPE_GPU_TIMELINE=0"));
  // The default windows: an inherited setting stays; asked-for ones replace it.
  EXPECT_TRUE(has(child_environment({"SYNCSCOPE_GPU_TIMELINE_SAMPLING=full"}, s), "SYNCSCOPE_GPU_TIMELINE_SAMPLING=full"));
  s.gpu_sampling = "2000/30000";
  env = child_environment({"SYNCSCOPE_GPU_TIMELINE_SAMPLING=full"}, s);
  EXPECT_TRUE(has(env, "SYNCSCOPE_GPU_TIMELINE_SAMPLING=2000/30000"));
  EXPECT_FALSE(has(env, "SYNCSCOPE_GPU_TIMELINE_SAMPLING=full"));
}

TEST(ChildEnvironment, DormantNeedsNoOutputDirectory) {
  RecorderSettings s = settings();
  s.dormant = true;
  s.output_dir.clear();
  auto env = child_environment({"PATH=/bin"}, s);
  EXPECT_TRUE(has(env, "SYNCSCOPE_DORMANT=1"));
  EXPECT_TRUE(has(env, "LD_PRELOAD=/opt/s/lib/libsyncscope.so"));
  EXPECT_FALSE(std::any_of(env.begin(), env.end(),
                           [](const std::string& kv) { return kv.rfind("SYNCSCOPE_OUTPUT_DIR", 0) == 0; }));
  auto recording = child_environment({}, settings());
  EXPECT_FALSE(std::any_of(recording.begin(), recording.end(),
                           [](const std::string& kv) { return kv.rfind("SYNCSCOPE_DORMANT", 0) == 0; }));
}

TEST(ChildEnvironment, StatusChannelIsThisRunsOnly) {
  RecorderSettings s = settings();
  s.status_channel = "5:100:23:42";
  auto env = child_environment({"SYNCSCOPE_STATUS_FD=9:1:2:3"}, s);
  EXPECT_TRUE(has(env, "SYNCSCOPE_STATUS_FD=5:100:23:42"));
  EXPECT_FALSE(has(env, "SYNCSCOPE_STATUS_FD=9:1:2:3"));
  // No channel of its own (dormant): an enclosing run's is not passed on either.
  auto none = child_environment({"SYNCSCOPE_STATUS_FD=9:1:2:3"}, settings());
  EXPECT_FALSE(std::any_of(none.begin(), none.end(),
                           [](const std::string& kv) { return kv.rfind("SYNCSCOPE_STATUS_FD", 0) == 0; }));
}

// A sanitizer runtime must be the process's first library (ASan stops the
// program otherwise): the user's own in LD_PRELOAD, or the one the program
// needs, goes before the preload; the rest keeps its order.
TEST(ChildEnvironment, SanitizerRuntimesComeBeforeThePreload) {
  const std::string p = settings().preload_path;
  auto users = child_environment({"LD_PRELOAD=/opt/libmine.so:/usr/lib/x86_64-linux-gnu/libasan.so.8"}, settings());
  EXPECT_TRUE(has(users, "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libasan.so.8:" + p + ":/opt/libmine.so"));
  RecorderSettings s = settings();
  s.sanitizer_runtimes = {"libasan.so.8"};
  EXPECT_TRUE(has(child_environment({}, s), "LD_PRELOAD=libasan.so.8:" + p));
  // Already preloaded by the user under its full path: not twice.
  EXPECT_TRUE(has(child_environment({"LD_PRELOAD=/usr/lib/libasan.so.8"}, s), "LD_PRELOAD=/usr/lib/libasan.so.8:" + p));
  // No sanitizer: unchanged.
  EXPECT_TRUE(has(child_environment({"LD_PRELOAD=/opt/libmine.so"}, settings()), "LD_PRELOAD=" + p + ":/opt/libmine.so"));
}

TEST(SanitizerRuntimes, NamesAndNeededLibraries) {
  EXPECT_TRUE(is_first_sanitizer_runtime("libasan.so.8"));
  EXPECT_TRUE(is_first_sanitizer_runtime("/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.asan-x86_64.so"));
  EXPECT_TRUE(is_first_sanitizer_runtime("libtsan.so.2"));
  EXPECT_FALSE(is_first_sanitizer_runtime("libubsan.so.1"));
  EXPECT_FALSE(is_first_sanitizer_runtime("/opt/asan/libfoo.so"));
  // This test binary's own dependencies, read from its ELF dynamic section.
  std::vector<std::string> needed = needed_libraries("/proc/self/exe");
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libc.so.6"), needed.end());
  EXPECT_TRUE(needed_libraries("/etc/hostname").empty());
  EXPECT_TRUE(needed_libraries("/no/such/file").empty());
  EXPECT_EQ(resolve_command("sh", "/no/such/dir:/bin:/usr/bin").substr(0, 1), "/");
  EXPECT_EQ(resolve_command("no-such-command-anywhere", "/bin:/usr/bin"), "");
}

}  // namespace
}  // namespace syncscope
