#include "inject/safe_point.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

namespace syncscope::inject {
namespace {

const LoadedObject kLibc{"/lib/libc.so.6", 0x7f0000000000, 0x7f0000000000, 0x7f0000200000};
const std::optional<LoadedObject> kLoader =
    LoadedObject{"/lib/ld-linux-x86-64.so.2", 0x7f1000000000, 0x7f1000000000, 0x7f1000030000};
constexpr uint64_t kInLibc = 0x7f0000012345;
constexpr uint64_t kInLoader = 0x7f1000001000;
constexpr uint64_t kInProgram = 0x555500001000;

ThreadPosition at(uint64_t rip, int64_t orig_rax = -1, bool after_syscall = false) {
  return ThreadPosition{rip, orig_rax, after_syscall};
}

TEST(SafePoint, ProgramCodeIsSafe) {
  EXPECT_EQ(unsafe_reason(at(kInProgram), kLibc, kLoader), "");
  // Even a memory system call made by the program itself holds no libc lock.
  EXPECT_EQ(unsafe_reason(at(kInProgram, SYS_mmap, true), kLibc, kLoader), "");
}

TEST(SafePoint, BlockingSystemCallInLibcIsSafe) {
  EXPECT_EQ(unsafe_reason(at(kInLibc, SYS_read, true), kLibc, kLoader), "");
  EXPECT_EQ(unsafe_reason(at(kInLibc, SYS_clock_nanosleep, true), kLibc, kLoader), "");
  EXPECT_EQ(unsafe_reason(at(kInLibc, SYS_futex, true), kLibc, kLoader), "");
}

TEST(SafePoint, LibcCodeOutsideASystemCallIsNot) {
  EXPECT_NE(unsafe_reason(at(kInLibc), kLibc, kLoader), "");
  // orig_rax alone is not enough: the instruction before rip must be `syscall`.
  EXPECT_NE(unsafe_reason(at(kInLibc, SYS_read, false), kLibc, kLoader), "");
  EXPECT_NE(unsafe_reason(at(kInLibc, -1, true), kLibc, kLoader), "");
}

TEST(SafePoint, MallocsMemorySystemCallsAreNot) {
  for (int64_t nr : {SYS_mmap, SYS_munmap, SYS_mprotect, SYS_brk, SYS_madvise, SYS_mremap}) {
    EXPECT_NE(unsafe_reason(at(kInLibc, nr, true), kLibc, kLoader).find("malloc may hold its lock"), std::string::npos)
        << nr;
  }
}

TEST(SafePoint, TheLoaderIsNeverSafe) {
  EXPECT_EQ(unsafe_reason(at(kInLoader), kLibc, kLoader), "inside the dynamic loader");
  EXPECT_EQ(unsafe_reason(at(kInLoader, SYS_openat, true), kLibc, kLoader), "inside the dynamic loader");
  EXPECT_EQ(unsafe_reason(at(kInLoader), kLibc, std::nullopt), "");  // no loader mapped (static-pie)
}

}  // namespace
}  // namespace syncscope::inject
