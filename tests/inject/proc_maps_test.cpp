#include "inject/proc_maps.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace syncscope::inject {
namespace {

const char kMaps[] =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234       /usr/bin/target\n"
    "7f1000000000-7f1000028000 r--p 00000000 08:01 42         /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f1000028000-7f10001bd000 r-xp 00028000 08:01 42         /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f10001bd000-7f1000215000 r--p 001bd000 08:01 42         /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f1000215000-7f1000218000 rw-p 00000000 00:00 0 \n"
    "7f2000000000-7f2000001000 r--p 00000000 08:01 77         /opt/my lib/libspace.so\n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0          [stack]\n";

TEST(ProcMaps, ParsesFieldsAndPaths) {
  auto maps = parse_proc_maps(kMaps);
  ASSERT_EQ(maps.size(), 7u);
  EXPECT_EQ(maps[2].start, 0x7f1000028000u);
  EXPECT_EQ(maps[2].end, 0x7f10001bd000u);
  EXPECT_EQ(maps[2].offset, 0x28000u);
  EXPECT_EQ(maps[2].perms, "r-xp");
  EXPECT_EQ(maps[2].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(maps[4].path, "");
  EXPECT_EQ(maps[5].path, "/opt/my lib/libspace.so");
  EXPECT_EQ(maps[6].path, "[stack]");
}

TEST(ProcMaps, FindsBaseAndSpanByBasename) {
  auto maps = parse_proc_maps(kMaps);
  auto libc = find_loaded_object(maps, [](const std::string& b) { return b.rfind("libc.so", 0) == 0; });
  ASSERT_TRUE(libc.has_value());
  EXPECT_EQ(libc->base, 0x7f1000000000u);
  EXPECT_EQ(libc->low, 0x7f1000000000u);
  EXPECT_EQ(libc->high, 0x7f1000215000u);  // the anonymous bss after it is not the file
  EXPECT_TRUE(libc->contains(0x7f1000100000u));
  EXPECT_FALSE(libc->contains(0x7f1000215000u));
  EXPECT_FALSE(find_loaded_object(maps, [](const std::string& b) { return b == "stack"; }).has_value());
}

TEST(ProcMaps, BaseIsTheOffsetZeroMappingEvenWhenNotLowest) {
  // A segment mapped below the file's start: base is where offset 0 lies.
  auto maps = parse_proc_maps(
      "7f0000000000-7f0000001000 r--p 00003000 08:01 9 /lib/libodd.so\n"
      "7f0000001000-7f0000002000 r-xp 00000000 08:01 9 /lib/libodd.so\n");
  auto obj = find_loaded_object(maps, [](const std::string& b) { return b == "libodd.so"; });
  ASSERT_TRUE(obj.has_value());
  EXPECT_EQ(obj->base, 0x7f0000001000u);
  EXPECT_EQ(obj->low, 0x7f0000000000u);
}

TEST(ProcMaps, WithoutOffsetZeroBaseIsLowestStartMinusOffset) {
  // The first page was unmapped (or never mapped): the rest still tells.
  auto maps = parse_proc_maps("7f0000005000-7f0000006000 r-xp 00005000 08:01 9 /lib/libcut.so\n");
  auto obj = find_loaded_object(maps, [](const std::string& b) { return b == "libcut.so"; });
  ASSERT_TRUE(obj.has_value());
  EXPECT_EQ(obj->base, 0x7f0000000000u);
}

TEST(ProcMaps, ReadsOwnMaps) {
  auto maps = read_proc_maps(getpid());
  ASSERT_TRUE(maps.ok()) << maps.status();
  auto self = find_loaded_object(*maps, [](const std::string& b) { return b == "inject_tests"; });
  ASSERT_TRUE(self.has_value());
  auto here = reinterpret_cast<uint64_t>(&parse_proc_maps);
  EXPECT_TRUE(self->contains(here));
}

TEST(ProcMaps, MissingProcessIsAnError) { EXPECT_FALSE(read_proc_maps(0x3fffffff).ok()); }

}  // namespace
}  // namespace syncscope::inject
