#include "sites/symbolizer.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "sites/report_warnings.h"

namespace syncscope {
namespace {

__attribute__((noinline)) int visible_function_for_symbolizer(int x) { return x * 3 + 1; }
namespace inner {
__attribute__((noinline)) static int static_function_for_symbolizer(int x) { return x * 5 + 2; }
}  // namespace inner

// A trace whose module list is this process's loaded objects.
ProcessTrace self_trace() {
  ProcessTrace t;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* trace = static_cast<ProcessTrace*>(data);
        uint64_t lo = ~0ull, hi = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_LOAD) continue;
          uint64_t b = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
          lo = std::min(lo, b);
          hi = std::max(hi, b + info->dlpi_phdr[i].p_memsz);
        }
        if (hi > lo) trace->modules.push_back({lo, hi, info->dlpi_addr, info->dlpi_name ? info->dlpi_name : "", ""});
        return 0;
      },
      &t);
  std::sort(t.modules.begin(), t.modules.end(), [](const Module& a, const Module& b) { return a.start < b.start; });
  t.process_info.emplace_back("exe", std::filesystem::read_symlink("/proc/self/exe").string());
  return t;
}

TEST(Symbolizer, NamesFunctionsOfTheExecutable) {
  ProcessTrace t = self_trace();
  Symbolizer s(t);
  auto pc = reinterpret_cast<uint64_t>(&visible_function_for_symbolizer) + 4;
  Frame f = s.symbolize(pc, true);
  EXPECT_NE(f.symbol.find("visible_function_for_symbolizer(int)"), std::string::npos) << f.symbol;
  EXPECT_EQ(f.offset, 4u);
  EXPECT_EQ(f.module, "report_unit_tests");
  // A return address just past the function's start still names it (pc - 1).
  Frame ret = s.symbolize(reinterpret_cast<uint64_t>(&inner::static_function_for_symbolizer) + 1, false);
  EXPECT_NE(ret.symbol.find("static_function_for_symbolizer"), std::string::npos) << ret.symbol;
  EXPECT_EQ(visible_function_for_symbolizer(1) + inner::static_function_for_symbolizer(1), 11);
}

TEST(Symbolizer, NamesFunctionsOfSharedLibraries) {
  ProcessTrace t = self_trace();
  Symbolizer s(t);
  void* printf_address = dlsym(RTLD_DEFAULT, "printf");
  ASSERT_NE(printf_address, nullptr);
  Frame f = s.symbolize(reinterpret_cast<uint64_t>(printf_address), true);
  EXPECT_NE(f.module.find("libc.so"), std::string::npos) << f.module;
  EXPECT_NE(f.symbol.find("printf"), std::string::npos) << f.symbol;
}

TEST(Symbolizer, UnknownAddressesAndUnreadableFilesAreNotFatal) {
  ProcessTrace t;
  t.modules.push_back({0x1000, 0x2000, 0x1000, "/nonexistent/libgone.so", ""});
  Symbolizer s(t);
  Frame gone = s.symbolize(0x1234, false);
  EXPECT_EQ(gone.symbol, "??");
  EXPECT_EQ(gone.module, "libgone.so");
  EXPECT_EQ(gone.to_string(), "libgone.so+0x234");
  Frame nowhere = s.symbolize(0x9999, true);
  EXPECT_EQ(nowhere.symbol, "??");
  EXPECT_EQ(nowhere.module, "");
}

TEST(Symbolizer, EmptyModulePathIsTheExecutable) {
  ProcessTrace t = self_trace();
  auto pc = reinterpret_cast<uint64_t>(&visible_function_for_symbolizer);
  const Module* m = t.module_for(pc);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->path, "");  // dl_iterate_phdr names the main program ""
  Frame f = Symbolizer(t).symbolize(pc, true);
  EXPECT_EQ(f.module_path, t.info("exe"));
  EXPECT_EQ(f.offset, 0u);
}

TEST(Symbolizer, PrefersTheExportedNameOfAliases) {
  ProcessTrace t = self_trace();
  Symbolizer s(t);
  Frame f = s.symbolize(reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "printf")), true);
  EXPECT_EQ(f.symbol, "printf");  // not _IO_printf
  EXPECT_EQ(f.to_string(), "printf+0x0 (" + f.module + ")");
}

TEST(Symbolizer, VdsoAndNonElfFilesGiveModuleOnlyFrames) {
  std::string text_file = ::testing::TempDir() + "/not_an_elf.so";
  std::FILE* file = std::fopen(text_file.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs(
      "\x7f"
      "ELF but not really, just text\n",
      file);
  std::fclose(file);
  ProcessTrace t;
  t.modules.push_back({0x1000, 0x2000, 0x1000, "[vdso]", ""});
  t.modules.push_back({0x3000, 0x4000, 0x3000, text_file, ""});
  t.modules.push_back({0x5000, 0x6000, 0x5000, "/proc", ""});  // a directory
  Symbolizer s(t);
  EXPECT_EQ(s.symbolize(0x1010, false).to_string(), "[vdso]+0x10");
  EXPECT_EQ(s.symbolize(0x3020, true).to_string(), "not_an_elf.so+0x20");
  EXPECT_EQ(s.symbolize(0x5030, true).to_string(), "proc+0x30");
  // Cached per PC: the same answer again.
  EXPECT_EQ(s.symbolize(0x3020, true).to_string(), "not_an_elf.so+0x20");
  std::remove(text_file.c_str());
}

std::vector<std::string>& warnings_said() {
  static std::vector<std::string> said;
  return said;
}

std::string build_id_of(const std::string& path) {
  elf::ElfFile file;
  EXPECT_EQ(file.open(path), elf::ElfFile::Status::kOk) << file.error();
  char hex[2 * elf::BuildId::kMaxSize + 1];
  return elf::build_id_hex(file.image().build_id(), hex, sizeof(hex));
}

TEST(Symbolizer, TheRecordedBuildIdNamesFunctionsAsBefore) {
  ProcessTrace t = self_trace();
  auto pc = reinterpret_cast<uint64_t>(&visible_function_for_symbolizer);
  Module* m = const_cast<Module*>(t.module_for(pc));
  ASSERT_NE(m, nullptr);
  m->build_id = build_id_of(t.info("exe"));
  ASSERT_EQ(m->build_id.size(), 40u);  // GNU ld's sha1
  warnings_said().clear();
  set_report_warning_sink(+[](const std::string& message) { warnings_said().push_back(message); });
  Frame f = Symbolizer(t).symbolize(pc, true);
  set_report_warning_sink(nullptr);
  EXPECT_NE(f.symbol.find("visible_function_for_symbolizer"), std::string::npos) << f.symbol;
  EXPECT_FALSE(f.module_changed);
  EXPECT_TRUE(warnings_said().empty());
}

TEST(Symbolizer, AModuleRebuiltSinceTheRecordingIsLeftUnsymbolizedWithOneWarning) {
  ProcessTrace t = self_trace();
  auto pc = reinterpret_cast<uint64_t>(&visible_function_for_symbolizer);
  Module* m = const_cast<Module*>(t.module_for(pc));
  ASSERT_NE(m, nullptr);
  m->build_id = "00112233445566778899aabbccddeeff00112233";  // not this binary's
  warnings_said().clear();
  set_report_warning_sink(+[](const std::string& message) { warnings_said().push_back(message); });
  Symbolizer s(t);
  Frame f = s.symbolize(pc + 4, true);
  EXPECT_EQ(f.symbol, "??");
  EXPECT_TRUE(f.module_changed);
  EXPECT_EQ(f.module, "report_unit_tests");
  EXPECT_EQ(f.offset, pc + 4 - m->bias);  // module+offset: still exact for the recorded build
  EXPECT_EQ(f.to_string().rfind("report_unit_tests+0x", 0), 0u) << f.to_string();
  // Another PC of the module, another symbolizer (another rank's trace): no second warning.
  EXPECT_TRUE(s.symbolize(reinterpret_cast<uint64_t>(&inner::static_function_for_symbolizer), true).module_changed);
  EXPECT_TRUE(Symbolizer(t).symbolize(pc, false).module_changed);
  // Other modules are named as usual.
  EXPECT_EQ(s.symbolize(reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "printf")), true).symbol, "printf");
  set_report_warning_sink(nullptr);
  ASSERT_EQ(warnings_said().size(), 1u);
  EXPECT_NE(warnings_said()[0].find(t.info("exe")), std::string::npos) << warnings_said()[0];
  EXPECT_NE(
      warnings_said()[0].find("00112233445566778899aabbccddeeff00112233 then, " + build_id_of(t.info("exe")) + " now"),
      std::string::npos)
      << warnings_said()[0];
}

TEST(Symbolizer, Demangles) {
  EXPECT_EQ(demangle("_Z3fooi"), "foo(int)");
  EXPECT_EQ(demangle("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(demangle("_Znot-valid"), "_Znot-valid");
}

}  // namespace
}  // namespace syncscope
