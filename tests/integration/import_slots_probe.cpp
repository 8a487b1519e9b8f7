#include "tests/integration/import_slots_probe.h"

#include "tests/integration/harness.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "elf/elf_file.h"

namespace syncscope::testing {
namespace {

struct Range {
  uint64_t address;
  uint64_t size;
};

// The .got and .got.plt sections of an ELF64 file, by link-time address.
std::vector<Range> got_sections(const std::string& file, bool* position_independent) {
  std::vector<Range> ranges;
  elf::ElfFile elf_file;
  if (elf_file.open(file) != elf::ElfFile::Status::kOk) return ranges;
  const elf::ElfImage& image = elf_file.image();
  *position_independent = image.type() == ET_DYN;
  for (size_t i = 0; i < image.section_count(); ++i) {
    const Elf64_Shdr& section = image.sections()[i];
    std::string name = image.section_name(section);
    if (name == ".got" || name == ".got.plt") ranges.push_back({section.sh_addr, section.sh_size});
  }
  return ranges;
}

// Where the executable was mapped: the start of its mapping at file offset 0.
uint64_t load_base(int pid, const std::string& executable) {
  std::string canonical = std::filesystem::canonical(executable).string();
  std::istringstream maps(slurp("/proc/" + std::to_string(pid) + "/maps"));
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (path == canonical && std::strtoull(offset.c_str(), nullptr, 16) == 0) {
      return std::strtoull(range.c_str(), nullptr, 16);
    }
  }
  return 0;
}

}  // namespace

std::string read_import_slots(int pid, const std::string& executable) {
  bool pie = false;
  std::vector<Range> ranges = got_sections(executable, &pie);
  EXPECT_FALSE(ranges.empty()) << executable << " has no .got/.got.plt";
  uint64_t base = pie ? load_base(pid, executable) : 0;
  EXPECT_TRUE(!pie || base != 0) << "no mapping of " << executable << " in process " << pid;
  int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << "cannot open /proc/" << pid << "/mem";
  if (fd < 0) return {};
  std::string out;
  for (const Range& r : ranges) {
    std::string chunk(r.size, '\0');
    ssize_t n = pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(base + r.address));
    EXPECT_EQ(n, static_cast<ssize_t>(chunk.size())) << "short read of process " << pid << "'s GOT";
    out += chunk;
  }
  close(fd);
  return out;
}

}  // namespace syncscope::testing
