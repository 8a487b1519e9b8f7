// Offline symbolisation of recorded PCs: the trace names each loaded object
// (path, load bias); the symbolizer reads that ELF file's symbol tables once
// (.symtab when present, else .dynsym; read with the ELF reader,
// inject/elf_file.h) and names the function around a PC.
// heaptrack's split: the preload records addresses, analysis names them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/reader.h"

namespace syncscope {

struct Frame {
  uint64_t pc = 0;
  std::string module;       // basename of the object ("" if unknown)
  std::string module_path;  // full path
  std::string symbol;       // demangled function name, or "??"
  uint64_t offset = 0;      // pc - symbol start (or - module bias when the symbol is unknown)

  // "symbol+0x1f (libfoo.so)" or "libfoo.so+0x1234".
  std::string to_string() const;
};

class ElfSymbols;

class Symbolizer {
 public:
  explicit Symbolizer(const ProcessTrace& trace);
  ~Symbolizer();
  // innermost: the PC is the call site itself, not a return address.
  Frame symbolize(uint64_t pc, bool innermost);

 private:
  const ElfSymbols* symbols_for(const Module& module);
  const ProcessTrace& trace_;
  std::map<std::string, std::unique_ptr<ElfSymbols>> files_;
  std::unordered_map<uint64_t, Frame> cache_;
};

// Demangles a C++ symbol; returns the input when it is not mangled.
std::string demangle(const std::string& name);

}  // namespace syncscope
