#include "inject/elf_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "inject/proc_maps.h"

namespace syncscope::inject {
namespace {

LoadedObject own_libc() {
  auto maps = read_proc_maps(getpid());
  EXPECT_TRUE(maps.ok());
  auto libc = find_loaded_object(*maps, [](const std::string& b) { return b.rfind("libc.so", 0) == 0; });
  EXPECT_TRUE(libc.has_value());
  return libc.value_or(LoadedObject{});
}

// What the file says, placed at our libc's base, must be what the dynamic
// linker resolved in this very process.
void expect_matches_dlsym(const char* name) {
  LoadedObject libc = own_libc();
  auto value = elf_dynamic_symbol(libc.path, name);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(libc.base + *value, reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, name))) << name;
}

TEST(ElfSymbols, DlopenMatchesTheLoadedLibc) { expect_matches_dlsym("dlopen"); }
TEST(ElfSymbols, ErrnoLocationMatchesTheLoadedLibc) { expect_matches_dlsym("__errno_location"); }

TEST(ElfSymbols, DefaultVersionWinsOverAnEarlierHiddenOne) {
  // libc lists pthread_cond_init@GLIBC_2.2.5 (old ABI) before
  // pthread_cond_init@@GLIBC_2.3.2; only the default is what dlsym gives.
  expect_matches_dlsym("pthread_cond_init");
}

TEST(ElfSymbols, UndefinedSymbolIsNotFound) {
  auto v = elf_dynamic_symbol(own_libc().path, "no_such_symbol_in_libc");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kNotFound);
}

TEST(ElfSymbols, ImportedSymbolIsNotADefinition) {
  // The test binary imports dlsym from libc but does not define it.
  auto v = elf_dynamic_symbol("/proc/self/exe", "dlsym");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kNotFound) << v.status();
}

TEST(ElfSymbols, IndirectFunctionsAreRefused) {
  auto v = elf_dynamic_symbol(own_libc().path, "memcpy");  // an IFUNC in glibc
  EXPECT_EQ(v.status().code(), absl::StatusCode::kUnimplemented) << v.status();
}

TEST(ElfSymbols, MachineOfThisProgram) {
  auto m = elf_machine("/proc/self/exe");
  ASSERT_TRUE(m.ok()) << m.status();
#if defined(__x86_64__)
  EXPECT_EQ(*m, EM_X86_64);
#endif
}

TEST(ElfSymbols, NonElfAndMissingFilesAreErrors) {
  std::string text = ::testing::TempDir() + "not_elf.txt";
  std::ofstream(text) << "just some text, long enough to hold an ELF header's worth of bytes....\n";
  EXPECT_EQ(elf_machine(text).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(elf_dynamic_symbol(text, "x").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(elf_machine("/nonexistent/file").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace syncscope::inject
