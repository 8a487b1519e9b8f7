#include "tools/sanitizer_runtimes.h"

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace syncscope {

bool is_first_sanitizer_runtime(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  for (std::string_view prefix : {"libasan.so", "libtsan.so", "libhwasan.so", "libclang_rt.asan", "libclang_rt.tsan",
                                  "libclang_rt.hwasan"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

namespace {

// The whole file, at most `limit` bytes (the dynamic section and its
// strings are near the start of any object this is asked about).
std::string read_prefix(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string data(limit, '\0');
  in.read(data.data(), static_cast<std::streamsize>(limit));
  data.resize(static_cast<size_t>(in.gcount()));
  return data;
}

template <typename T>
bool load(const std::string& data, uint64_t offset, T* out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
  std::memcpy(out, data.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  const std::string data = read_prefix(path, 64u << 20);
  Elf64_Ehdr eh;
  if (!load(data, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return {};
  }
  std::vector<Elf64_Phdr> loads;
  Elf64_Phdr dynamic{};
  bool have_dynamic = false;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!load(data, eh.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr), &ph)) return {};
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) dynamic = ph, have_dynamic = true;
  }
  if (!have_dynamic) return {};
  // DT_STRTAB holds an address: the file offset is the loaded segment's.
  auto file_offset = [&loads](uint64_t address, uint64_t* out) {
    for (const Elf64_Phdr& ph : loads) {
      if (address >= ph.p_vaddr && address < ph.p_vaddr + ph.p_filesz) {
        *out = address - ph.p_vaddr + ph.p_offset;
        return true;
      }
    }
    return false;
  };
  std::vector<uint64_t> needed;
  uint64_t strtab = 0;
  bool have_strtab = false;
  for (uint64_t at = dynamic.p_offset; at + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    if (!load(data, at, &d) || d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_NEEDED) needed.push_back(d.d_un.d_val);
    if (d.d_tag == DT_STRTAB) have_strtab = file_offset(d.d_un.d_ptr, &strtab);
  }
  std::vector<std::string> out;
  if (!have_strtab) return out;
  for (uint64_t name : needed) {
    const uint64_t at = strtab + name;
    if (at >= data.size()) continue;
    const size_t end = data.find('\0', at);
    if (end == std::string::npos) continue;
    out.push_back(data.substr(at, end - at));
  }
  return out;
}

std::vector<std::string> sanitizer_runtimes_needed(const std::string& path) {
  std::vector<std::string> out;
  for (std::string& name : needed_libraries(path)) {
    if (is_first_sanitizer_runtime(name)) out.push_back(std::move(name));
  }
  return out;
}

std::string resolve_command(const std::string& command, const std::string& path_variable) {
  if (command.empty()) return {};
  if (command.find('/') != std::string::npos) return access(command.c_str(), X_OK) == 0 ? command : std::string();
  std::stringstream dirs(path_variable);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + command;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace syncscope
