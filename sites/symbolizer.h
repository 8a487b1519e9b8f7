// Offline symbolisation of recorded PCs: the trace names each loaded object
// (path, load bias); the symbolizer reads that ELF file's symbol tables once
// (.symtab when present, else .dynsym; read with the ELF reader,
// elf/elf_file.h) and names the function around a PC.
// heaptrack's split: the preload records addresses, analysis names them.
//
// The file read at report time must be the one that was loaded: a library
// rebuilt or upgraded since would name the wrong functions. The trace
// records each module's GNU build-id; when the file on disk has another one
// (or none), the symbolizer warns once (report_warnings.h) and leaves that
// module's frames unsymbolized: module+offset, which is still exact about
// the recorded object, rather than names from a different build.
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
  std::string module;           // basename of the object ("" if unknown)
  std::string module_path;      // full path
  std::string symbol;           // demangled function name, or "??"
  uint64_t offset = 0;          // pc - symbol start (or - module bias when the symbol is unknown)
  bool module_changed = false;  // the module's file is not the recorded build: left unsymbolized

  // "symbol+0x1f (libfoo.so)" or "libfoo.so+0x1234".
  std::string to_string() const;
};

struct ModuleSymbols;

class Symbolizer {
 public:
  explicit Symbolizer(const ProcessTrace& trace);
  ~Symbolizer();
  // innermost: the PC is the call site itself, not a return address.
  Frame symbolize(uint64_t pc, bool innermost);

 private:
  const ModuleSymbols& symbols_for(const Module& module);
  const ProcessTrace& trace_;
  std::map<std::string, std::unique_ptr<ModuleSymbols>> files_;  // by path and recorded build-id
  std::unordered_map<uint64_t, Frame> cache_;
};

// Demangles a C++ symbol; returns the input when it is not mangled.
std::string demangle(const std::string& name);

}  // namespace syncscope
