// The import patcher (preload/attach/import_patcher.h) on a shared object with
// known imports (tests/inject/elf_fixture.c, linked into this test):
// libelf_fixture.so calls fixture_import_a through a JUMP_SLOT and reads
// fixture_import_b's address from a GLOB_DAT slot, both in RELRO pages.
#include "preload/attach/import_patcher.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "preload/attach/import_patch.h"

extern "C" int fixture_call_a(void);
extern "C" int fixture_call_b(void);

namespace syncscope::preload {
namespace {

int replacement_a() { return 101; }
int replacement_b() { return 202; }
int other_writer() { return 303; }

bool only_the_fixture(uintptr_t, const char* path, void*) { return std::strstr(path, "libelf_fixture.so") != nullptr; }

const ImportPatch kBoth[] = {
    {"fixture_import_a", reinterpret_cast<void*>(&replacement_a)},
    {"fixture_import_b", reinterpret_cast<void*>(&replacement_b)},
};

// The fixture's slot for `symbol`.
ImportSlot fixture_slot(const char* symbol) {
  struct Find {
    const char* symbol;
    ImportSlot slot;
  } find{symbol, {}};
  for_each_import_slot(
      [](const ImportSlot& slot, void* data) -> int {
        auto* f = static_cast<Find*>(data);
        if (std::strcmp(slot.symbol, f->symbol) != 0) return 0;
        f->slot = slot;
        return 1;
      },
      &find, only_the_fixture);
  return find.slot;
}

// The permissions of the mapping holding `address` ("r--p"), from /proc/self/maps.
std::string permissions_at(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    unsigned long long start = 0, end = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s", &start, &end, perms) == 3 && at >= start && at < end) return perms;
  }
  return "";
}

TEST(ImportPatcher, PatchesAndRestoresTwoSymbols) {
  ASSERT_EQ(fixture_call_a(), 1);
  ASSERT_EQ(fixture_call_b(), 2);
  ImportSlot a = fixture_slot("fixture_import_a");
  ASSERT_NE(a.address, nullptr);
  EXPECT_TRUE(a.relro);  // -z relro -z now: this exercises the mprotect dance

  ImportPatcher patcher(only_the_fixture);
  EXPECT_EQ(patcher.patch(kBoth, 2), 2);
  EXPECT_EQ(fixture_call_a(), 101);
  EXPECT_EQ(fixture_call_b(), 202);
  // The RELRO page is read-only again after the write.
  EXPECT_EQ(permissions_at(a.address).find('w'), std::string::npos) << permissions_at(a.address);
  auto per_object = patcher.patched_per_object();
  ASSERT_EQ(per_object.size(), 1u);
  EXPECT_NE(per_object[0].first.find("libelf_fixture.so"), std::string::npos);
  EXPECT_EQ(per_object[0].second, 2);

  // Nothing new loaded, targets unchanged: nothing to do.
  EXPECT_EQ(patcher.patch(kBoth, 2), 0);

  RestoreResult restored = patcher.restore();
  EXPECT_EQ(restored.restored, 2);
  EXPECT_EQ(restored.left, 0);
  EXPECT_EQ(restored.gone, 0);
  EXPECT_EQ(fixture_call_a(), 1);
  EXPECT_EQ(fixture_call_b(), 2);
  EXPECT_EQ(permissions_at(a.address).find('w'), std::string::npos);
}

TEST(ImportPatcher, ASymbolAddedLaterReachesObjectsAlreadyScanned) {
  ImportPatcher patcher(only_the_fixture);
  EXPECT_EQ(patcher.patch(&kBoth[0], 1), 1);
  EXPECT_EQ(fixture_call_a(), 101);
  EXPECT_EQ(fixture_call_b(), 2);
  // The fixture was scanned for fixture_import_a only; the second symbol
  // must not be skipped because the object was seen already.
  EXPECT_EQ(patcher.patch(&kBoth[1], 1), 1);
  EXPECT_EQ(fixture_call_a(), 101);
  EXPECT_EQ(fixture_call_b(), 202);
  EXPECT_EQ(patcher.restore().restored, 2);
  EXPECT_EQ(fixture_call_a(), 1);
  EXPECT_EQ(fixture_call_b(), 2);
}

TEST(ImportPatcher, RestoreLeavesASlotSomeoneElseRewrote) {
  ImportPatcher patcher(only_the_fixture);
  ASSERT_EQ(patcher.patch(kBoth, 2), 2);
  ImportSlot a = fixture_slot("fixture_import_a");
  ASSERT_TRUE(write_import_slot(a, reinterpret_cast<void*>(&other_writer)));
  RestoreResult restored = patcher.restore();
  EXPECT_EQ(restored.restored, 1);
  EXPECT_EQ(restored.left, 1);
  EXPECT_EQ(fixture_call_a(), 303);  // theirs, not put back over
  EXPECT_EQ(fixture_call_b(), 2);
  ASSERT_TRUE(write_import_slot(a, dlsym(RTLD_DEFAULT, "fixture_import_a")));
  EXPECT_EQ(fixture_call_a(), 1);
}

// The process-wide entry of the Python routing: a second call listing a
// different symbol patches it too (each symbol has its own state).
TEST(PatchImports, EachSymbolIsPatchedWhateverWasListedBefore) {
  EXPECT_GE(patch_imports(&kBoth[0], 1), 1);
  EXPECT_EQ(fixture_call_a(), 101);
  EXPECT_GE(patch_imports(&kBoth[1], 1), 1);
  EXPECT_EQ(fixture_call_b(), 202);
  // Pointed back at the real functions the same way.
  const ImportPatch originals[] = {
      {"fixture_import_a", dlsym(RTLD_DEFAULT, "fixture_import_a")},
      {"fixture_import_b", dlsym(RTLD_DEFAULT, "fixture_import_b")},
  };
  EXPECT_GE(patch_imports(originals, 2), 2);
  EXPECT_EQ(fixture_call_a(), 1);
  EXPECT_EQ(fixture_call_b(), 2);
}

}  // namespace
}  // namespace syncscope::preload
