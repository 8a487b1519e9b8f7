#!/usr/bin/env python3
"""Records the sample trace of the current trace-format version for
tests/data/traces/v<N>/ (docs/trace-format.md, "Samples of each version").

Runs tests/integration/python/accumulation_loop.py (a few optimizer steps of
gradient accumulation, with a sync on a C++ thread without Python frames)
under `syncscope run` against the fake CUDA runtime of tests/fakecuda, then
rewrites the machine's own paths and host name in the file so that nothing
in it names the machine it was recorded on:

    the repository         -> /src/syncscope
    the build directory    -> /src/syncscope/build
    the Python installation -> /usr
    the home directory     -> /home/user
    the host name          -> sample-host

Only strings change (module paths, process facts, Python code file names);
every other record is copied byte for byte, so the file stays exactly what
the recorder wrote, framing included.

    scripts/make-sample-trace.py [--force] [BUILD_DIR] [STEPS]

BUILD_DIR (default build/) needs bin/syncscope, fakecuda/ and
lib/libframeless_worker.so: a normal build with tests. Writes
tests/data/traces/v<N>/accumulation_loop.sstrace (N: the recorder's version;
an existing sample only with --force: a released version's sample is never
recorded again) and prints `syncscope dump` of it; then set the expectations
of tests/unit/trace/sample_traces_test.cpp and tests/unit/tools/dump_test.cpp
to what it shows.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAGIC = b"SYNCSCOP"
# The record layouts this script knows how to rewrite (trace/format.h).
KNOWN_VERSIONS = {1, 2}
K_MODULE, K_PROCESS, K_PYCODE = 3, 5, 8


def pad8(n):
    return (n + 7) & ~7


class Rewriter:
    def __init__(self, prefixes, hostname):
        # Longest prefix first: the build directory usually lies inside the repository.
        self.prefixes = sorted(prefixes, key=lambda p: len(p[0]), reverse=True)
        self.hostname = hostname

    def path(self, text):
        for old, new in self.prefixes:
            if text == old or text.startswith(old + "/"):
                return new + text[len(old):]
        return text

    def words(self, text):
        # argv: space-joined; rewrite each word that is a path.
        return " ".join(self.path(w) for w in text.split(" "))


def rewrite(data, rw):
    if data[:8] != MAGIC:
        raise SystemExit("not a syncscope trace")
    version, header_size = struct.unpack_from("<II", data, 8)
    if version not in KNOWN_VERSIONS:
        raise SystemExit(f"trace version {version}: teach {__file__} its string-carrying records first")
    out = bytearray(data[:header_size])
    at = header_size
    while at + 8 <= len(data):
        rtype, size = struct.unpack_from("<II", data, at)
        payload = data[at + 8:at + 8 + size]
        if len(payload) != size:
            raise SystemExit(f"record at offset {at} is cut short: record the sample again")
        if rtype == K_MODULE:
            (length,) = struct.unpack_from("<I", payload, 24)
            path = rw.path(payload[28:28 + length].decode()).encode()
            payload = payload[:24] + struct.pack("<I", len(path)) + path + payload[28 + length:]
        elif rtype == K_PROCESS:
            (klen,) = struct.unpack_from("<I", payload, 0)
            key = payload[4:4 + klen].decode()
            (vlen,) = struct.unpack_from("<I", payload, 4 + klen)
            value = payload[8 + klen:8 + klen + vlen].decode()
            if key == "hostname":
                value = rw.hostname
            elif key == "argv":
                value = rw.words(value)
            else:
                value = rw.path(value)
            v = value.encode()
            payload = payload[:4 + klen] + struct.pack("<I", len(v)) + v + payload[8 + klen + vlen:]
        elif rtype == K_PYCODE:
            code_id, first, flen = struct.unpack_from("<III", payload, 0)
            file = rw.path(payload[12:12 + flen].decode()).encode()
            rest = payload[12 + flen:]  # u32 nlen, the function's name
            payload = struct.pack("<III", code_id, first, len(file)) + file + rest
        out += struct.pack("<II", rtype, len(payload)) + payload + b"\0" * (pad8(len(payload)) - len(payload))
        at += 8 + pad8(size)
    if at != len(data):
        raise SystemExit("the trace ends inside a record: record the sample again")
    return bytes(out), version


def main():
    args = sys.argv[1:]
    force = "--force" in args
    args = [a for a in args if a != "--force"]
    build = os.path.abspath(args[0] if args else os.path.join(ROOT, "build"))
    steps = args[1] if len(args) > 1 else "12"
    syncscope = os.path.join(build, "bin", "syncscope")
    worker = os.path.join(build, "lib", "libframeless_worker.so")
    fakecuda = os.path.join(build, "fakecuda")
    for need in (syncscope, worker, fakecuda):
        if not os.path.exists(need):
            raise SystemExit(f"missing {need}: build with tests first")
    # The interpreter itself, not a wrapper (pyenv's shim is a shell script).
    python = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], capture_output=True, text=True,
                            check=True).stdout.strip()
    python_prefix = subprocess.run([python, "-c", "import sys; print(sys.base_prefix)"], capture_output=True,
                                   text=True, check=True).stdout.strip()
    script_dir = os.path.join(ROOT, "tests", "integration", "python")
    tmp = tempfile.mkdtemp(prefix="syncscope-sample-")
    try:
        env = dict(os.environ, LD_LIBRARY_PATH=fakecuda, PYTHONPATH=script_dir)
        run = subprocess.run([syncscope, "run", "--no-report", "-o", os.path.join(tmp, "t"), "--", python,
                              "accumulation_loop.py", steps, worker], cwd=script_dir, env=env, capture_output=True,
                             text=True)
        if run.returncode != 0:
            raise SystemExit(f"recording failed ({run.returncode}):\n{run.stderr}")
        traces = sorted(f for f in os.listdir(os.path.join(tmp, "t")) if f.endswith(".sstrace"))
        if len(traces) != 1:
            raise SystemExit(f"expected one trace, got {traces}")
        data = open(os.path.join(tmp, "t", traces[0]), "rb").read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    prefixes = [(ROOT, "/src/syncscope"), (python_prefix, "/usr")]
    if not (build + "/").startswith(ROOT + "/"):
        prefixes.append((build, "/src/syncscope/build"))
    home = os.path.expanduser("~")
    if home not in ("/", ""):
        prefixes.append((home, "/home/user"))
    sample, version = rewrite(data, Rewriter(prefixes, "sample-host"))
    host = os.uname().nodename
    for old in [p for p, _ in prefixes] + ([host] if len(host) >= 6 else []):
        if old.encode() in sample:
            raise SystemExit(f"{old} is still named in the trace: extend the rewriting")
    out_dir = os.path.join(ROOT, "tests", "data", "traces", f"v{version}")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "accumulation_loop.sstrace")
    if os.path.exists(out) and not force:
        raise SystemExit(f"{os.path.relpath(out, ROOT)} exists: a sample is kept as recorded (--force to replace it)")
    with open(out, "wb") as f:
        f.write(sample)
    print(f"wrote {os.path.relpath(out, ROOT)}: {len(sample)} bytes, trace version {version}")
    dump = subprocess.run([syncscope, "dump", out], capture_output=True, text=True)
    print(dump.stdout)
    if dump.returncode != 0:
        raise SystemExit(dump.stderr)


if __name__ == "__main__":
    main()
