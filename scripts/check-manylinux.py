#!/usr/bin/env python3
"""Checks ELF files against the manylinux_2_28 x86-64 policy, as auditwheel
does: every symbol version a file needs from a system library at most
GLIBC_2.28, GLIBCXX_3.4.24, CXXABI_1.3.11, GCC_7.0.0, and every NEEDED
library either one of the manylinux system libraries or a file shipped beside
it (which is checked too). Reads the ELF files itself (standard library only).

    scripts/check-manylinux.py [-v] PATH...

PATH: a wheel (.whl), a folder (every ELF file under it, e.g. a bundle of
scripts/make-bundle.sh) or a file. Prints, per ELF file, the newest version
needed from each library and its NEEDED list (-v: every version with its
symbols); exits 1 naming the file, symbol and version of each violation,
and when no ELF file was found at all.
"""
import os
import struct
import sys
import tempfile
import zipfile

# manylinux_2_28 (PEP 600; auditwheel's policy.json), x86-64.
LIMITS = {"GLIBC": (2, 28), "GLIBCXX": (3, 4, 24), "CXXABI": (1, 3, 11), "GCC": (7, 0, 0)}
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libgcc_s.so.1",
                    "libstdc++.so.6", "ld-linux-x86-64.so.2"}
SHT_DYNSYM, SHT_DYNAMIC, SHT_GNU_VERNEED, SHT_GNU_VERSYM = 11, 6, 0x6FFFFFFE, 0x6FFFFFFF
DT_NEEDED = 1
EM_X86_64 = 62


class ElfInfo:
    def __init__(self):
        self.machine = None
        self.needed = []  # DT_NEEDED, in order
        self.requirements = {}  # (library, version) -> [symbol, ...]


def read_elf(path):
    """The NEEDED list and the versions required per library, with symbols."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        return None
    if data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    info = ElfInfo()
    (info.machine,) = struct.unpack_from("<H", data, 18)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(shnum):
        name, kind, flags, addr, offset, size, link, _info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        sections.append((kind, offset, size, link, entsize))

    def string(section_index, offset):
        base = sections[section_index][1] + offset
        return data[base:data.index(b"\0", base)].decode()

    version_names = {}  # version index -> (library, version)
    for kind, offset, size, link, _ in sections:
        if kind == SHT_GNU_VERNEED:
            at = offset
            while True:
                _ver, count, file_name, aux, next_entry = struct.unpack_from("<HHIII", data, at)
                library = string(link, file_name)
                a = at + aux
                for _ in range(count):
                    _hash, _flags, other, name, next_aux = struct.unpack_from("<IHHII", data, a)
                    version_names[other] = (library, string(link, name))
                    info.requirements.setdefault((library, string(link, name)), [])
                    if next_aux == 0:
                        break
                    a += next_aux
                if next_entry == 0:
                    break
                at += next_entry
        elif kind == SHT_DYNAMIC:
            for at in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, at)
                if tag == 0:
                    break
                if tag == DT_NEEDED:
                    info.needed.append(string(link, value))
    dynsym = next((s for s in sections if s[0] == SHT_DYNSYM), None)
    versym = next((s for s in sections if s[0] == SHT_GNU_VERSYM), None)
    if dynsym and versym:
        count = dynsym[2] // dynsym[4]
        for i in range(1, count):
            name, _info, _other, shndx, _value, _size = struct.unpack_from("<IBBHQQ", data, dynsym[1] + i * dynsym[4])
            (index,) = struct.unpack_from("<H", data, versym[1] + 2 * i)
            index &= 0x7FFF
            # A required version (defined ones, a copy-relocated variable's, count too).
            if index in version_names:
                info.requirements[version_names[index]].append(string(dynsym[3], name))
    return info


def split_version(version):
    """'GLIBC_2.28' -> ('GLIBC', (2, 28)); None when it is no numbered version."""
    prefix, _, number = version.rpartition("_")
    try:
        return prefix, tuple(int(p) for p in number.split("."))
    except ValueError:
        return None


def elf_files(path):
    """(path shown, path on disk) of every ELF file under path."""
    candidates = [path] if os.path.isfile(path) else [
        os.path.join(d, n) for d, _, names in os.walk(path) for n in sorted(names)]
    for c in candidates:
        if os.path.isfile(c) and not os.path.islink(c):
            with open(c, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    yield c


def check(paths, verbose=False):
    problems = []
    files = []
    with tempfile.TemporaryDirectory() as scratch:
        for n, path in enumerate(paths):
            if path.endswith(".whl") and os.path.isfile(path):
                into = os.path.join(scratch, str(n))
                with zipfile.ZipFile(path) as z:
                    z.extractall(into)
                files += [(os.path.join(path, os.path.relpath(f, into)), f) for f in elf_files(into)]
            elif os.path.exists(path):
                files += [(f, f) for f in elf_files(path)]
            else:
                problems.append("%s: no such file or folder" % path)
        shipped = {os.path.basename(shown) for shown, _ in files}
        for shown, real in files:
            info = read_elf(real)
            if info.machine != EM_X86_64:
                problems.append("%s: not an x86-64 file (e_machine %d)" % (shown, info.machine))
            newest = {}
            for (library, version), symbols in sorted(info.requirements.items()):
                parsed = split_version(version)
                if library not in SYSTEM_LIBRARIES:
                    continue  # a library shipped beside it: checked as a file of its own
                if parsed is None or parsed[0] not in LIMITS:
                    problems.append("%s: needs %s from %s (not a manylinux_2_28 version): %s"
                                    % (shown, version, library, ", ".join(symbols) or "-"))
                    continue
                prefix, number = parsed
                if prefix not in newest or number > newest[prefix][0]:
                    newest[prefix] = (number, library)
                if number > LIMITS[prefix]:
                    for symbol in symbols or ["(no symbol)"]:
                        problems.append("%s: symbol %s needs %s from %s, newer than manylinux_2_28's %s_%s"
                                        % (shown, symbol, version, library, prefix,
                                           ".".join(map(str, LIMITS[prefix]))))
            for library in info.needed:
                if library not in SYSTEM_LIBRARIES and library not in shipped:
                    problems.append("%s: NEEDED %s is neither a manylinux system library nor shipped with it"
                                    % (shown, library))
            print("%s: %s; NEEDED %s" % (
                shown, ", ".join("%s_%s (%s)" % (p, ".".join(map(str, v)), lib)
                                 for p, (v, lib) in sorted(newest.items())) or "no versioned symbols",
                " ".join(info.needed) or "-"))
            if verbose:
                for (library, version), symbols in sorted(info.requirements.items()):
                    print("    %s %s: %s" % (library, version, " ".join(sorted(symbols))))
    if not files and not problems:
        problems.append("no ELF file found in %s" % " ".join(paths))
    for p in problems:
        print("FAIL %s" % p)
    print("manylinux_2_28: %s (%d ELF files)" % ("FAIL, %d problems" % len(problems) if problems else "ok", len(files)))
    return not problems


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"]
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0 if check(paths, verbose) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
