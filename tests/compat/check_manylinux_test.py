#!/usr/bin/env python3
"""scripts/check-manylinux.py must be able to fail: fed files that need too
new a glibc or libstdc++ (Debian 12's libspdlog, a program linked here the
ordinary way), a library NEEDED but not shipped, no ELF file at all, it exits
1 naming the file, symbol and version; fed compliant files (a library that
needs only old versions, and one that needs it shipped beside it, as a
folder and as a wheel) it exits 0.

    tests/compat/check_manylinux_test.py CHECK_SCRIPT WORK_DIR
"""
import os
import shutil
import subprocess
import sys
import zipfile

script, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print("%s  %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail and not ok else ""), flush=True)


def run_check(*paths):
    p = subprocess.run([sys.executable, script] + list(paths), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def cc(out, source, *flags):
    src = out + ".c"
    with open(src, "w") as f:
        f.write(source)
    subprocess.run(["cc", "-O1", "-o", out, src] + list(flags), check=True, cwd=work)
    return out


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

spdlog = "/usr/lib/x86_64-linux-gnu/libspdlog.so.1.10.0"
if os.path.exists(spdlog):
    rc, out = run_check(spdlog)
    check("Debian 12's libspdlog fails", rc == 1, out[-1500:])
    check("... naming the file, a symbol and its too-new GLIBC version",
          "libspdlog.so.1.10.0: symbol " in out and "needs GLIBC_2.34 from libc.so.6" in out, out[-1500:])
    check("... and its too-new GLIBCXX version", "needs GLIBCXX_3.4.30 from libstdc++.so.6" in out, out[-1500:])
    check("... and its NEEDED libfmt, not a system library",
          "NEEDED libfmt.so.9 is neither a manylinux system library nor shipped with it" in out, out[-1500:])
else:
    check("Debian 12's libspdlog is installed (scripts/install-deps.sh)", False, spdlog)

# A program linked the ordinary way on glibc >= 2.34 needs __libc_start_main@GLIBC_2.34.
program = cc(os.path.join(work, "plain_program"), "int main(void) { return 0; }\n")
rc, out = run_check(program)
check("a program linked plainly here fails", rc == 1 and "symbol __libc_start_main needs GLIBC_2.34" in out, out)

# Compliant: strlen (GLIBC_2.2.5) only; and a library NEEDing it.
folder = os.path.join(work, "bundle")
os.makedirs(folder)
old = cc(os.path.join(folder, "libold.so"), "#include <string.h>\nint old_len(const char* s) { return (int)strlen(s); }\n",
         "-shared", "-fPIC", "-Wl,-soname,libold.so")
user = cc(os.path.join(folder, "libuser.so"), "int old_len(const char*);\nint user(void) { return old_len(\"x\"); }\n",
          "-shared", "-fPIC", "-L" + folder, "-lold", "-Wl,--no-as-needed")
rc, out = run_check(folder)
check("a folder of compliant files passes", rc == 0 and "manylinux_2_28: ok (2 ELF files)" in out, out)
rc, out = run_check(user)
check("a library NEEDing one not shipped beside it fails",
      rc == 1 and "NEEDED libold.so is neither a manylinux system library nor shipped with it" in out, out)

wheel = os.path.join(work, "example-1.0-py3-none-manylinux_2_28_x86_64.whl")
with zipfile.ZipFile(wheel, "w") as z:
    z.write(old, "example/lib/libold.so")
    z.write(user, "example/lib/libuser.so")
rc, out = run_check(wheel)
check("a compliant wheel passes", rc == 0 and "example/lib/libuser.so" in out, out)
with zipfile.ZipFile(wheel, "a") as z:
    z.write(program, "example/bin/plain_program")
rc, out = run_check(wheel)
check("a wheel with one too-new file fails, naming it",
      rc == 1 and "example/bin/plain_program: symbol __libc_start_main needs GLIBC_2.34" in out, out)

empty = os.path.join(work, "empty")
os.makedirs(empty)
with open(os.path.join(empty, "readme.txt"), "w") as f:
    f.write("no ELF here\n")
rc, out = run_check(empty)
check("no ELF file at all fails", rc == 1 and "no ELF file found" in out, out)
rc, out = run_check(os.path.join(work, "missing"))
check("a missing path fails", rc == 1 and "no such file or folder" in out, out)

print("%d failed" % failures)
sys.exit(1 if failures else 0)
