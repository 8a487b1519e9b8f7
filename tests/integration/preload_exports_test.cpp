// libsyncscope.so must export the interposed CUDA entry points and nothing
// else: any other exported symbol could bind in place of the target's own.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <set>
#include <string>

#include "tests/integration/harness.h"
#include "trace/api.h"

namespace syncscope::testing {
namespace {

std::set<std::string> exported_symbols(const std::string& library) {
  std::set<std::string> names;
  std::string command = "nm -D --defined-only '" + library + "'";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (pipe == nullptr) return names;
  char line[1024];
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    char address[64], type[8], name[900];
    if (std::sscanf(line, "%63s %7s %899s", address, type, name) == 3) names.insert(name);
  }
  EXPECT_EQ(pclose(pipe), 0);
  return names;
}

TEST(PreloadExports, OnlyTheHooks) {
  std::set<std::string> names = exported_symbols(preload_path());
  ASSERT_FALSE(names.empty());
  // The runtime and driver hooks, dlsym (driver entry points fetched at run
  // time), PyEval_RestoreThread/SaveThread (Python attribution) and the
  // step markers that python/sitecustomize.py calls, the NVTX
  // loader's entry point (nvtx_injection.cpp), and syncscope.watch()'s
  // in-process control (in_process.cpp), and _exit/_Exit (the final flush
  // of a process that skips atexit, exit_hooks.cpp).
  std::regex hook(
      "^((__cuda|cuda|cu)[A-Za-z0-9_]+|dlsym|PyEval_RestoreThread|PyEval_SaveThread|syncscope_optimizer_step|syncscope_backward_begin|syncscope_python_line_callback|InitializeInjectionNvtx2|syncscope_control|syncscope_control_endpoint_stop|_exit|_Exit)"
      "(@@?[A-Za-z0-9_.]+)?$");
  for (const std::string& name : names) {
    EXPECT_TRUE(std::regex_match(name, hook)) << "unexpected export: " << name;
  }
  // Every row of the API table is exported.
  for (uint16_t id = 1; id < kApiCount; ++id) {
    if (api_family(id) == ApiFamily::kMarker) continue;  // syncscope's own events, not hooks
    std::string api(api_name(id));
    EXPECT_TRUE(names.count(api)) << "hook not exported: " << api;
  }
}

TEST(PreloadExports, NoNeededDependencyOnLibunwindOrCudart) {
  RunResult r = run({"/usr/bin/env", "readelf", "-d", preload_path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("libunwind"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libcudart"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libcuda."), std::string::npos) << r.out;
}

// The preload interposes dlsym to hand out driver wrappers; dlsym(RTLD_NEXT)
// from another library must still find the definition after *that* library.
TEST(PreloadExports, DlsymRtldNextKeepsTheCallersScope) {
  RunResult plain = run({SYNCSCOPE_DLSYM_NEXT});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "next=2\n");
  RunResult preloaded = run({SYNCSCOPE_DLSYM_NEXT}, {{"LD_PRELOAD", preload_path()}});
  ASSERT_EQ(preloaded.exit_code, 0) << preloaded.err;
  EXPECT_EQ(preloaded.out, "next=2\n");
}

}  // namespace
}  // namespace syncscope::testing
