#!/usr/bin/env python3
"""The wheel end to end on the fake runtime (issue 14): builds it
(scripts/build-wheel.sh), installs it with `pip install --no-deps --no-index`
into a fresh venv (Debian's python3-venv; --system-site-packages so Debian's
pytest is there), then from that install: the console script and `python -m
syncscope`, `syncscope run` on a script, the in-process API (api_cases.py)
and the pytest plugin (plugin_cases.py: which tests fail, and with what).

    tests/python/check_wheel.py BUILD_DIR FAKECUDA_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

build, fakecuda, work = (os.path.abspath(a) for a in sys.argv[1:4])
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
python = os.environ.get("SYNCSCOPE_TEST_PYTHON", "/usr/bin/python3")
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print("%s  %s: %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
p = run([os.path.join(root, "scripts", "build-wheel.sh"), build, os.path.join(work, "dist")])
wheels = [w for w in os.listdir(os.path.join(work, "dist"))] if p.returncode == 0 else []
check("the wheel builds", len(wheels) == 1, (wheels, p.stderr[-500:]))
if not wheels:
    sys.exit(1)
venv = os.path.join(work, "venv")
p = run([python, "-m", "venv", "--system-site-packages", venv])
check("a fresh venv", p.returncode == 0, p.stderr[-300:])
vpython = os.path.join(venv, "bin", "python")
p = run([vpython, "-m", "pip", "install", "--no-deps", "--no-index", "-q", os.path.join(work, "dist", wheels[0])])
check("pip install --no-deps --no-index", p.returncode == 0, p.stderr[-500:])

env = dict(os.environ, LD_LIBRARY_PATH=fakecuda, PYTHONPATH=here, SYNCSCOPE_LOG="quiet")
env.pop("SYNCSCOPE_HOME", None)
env.pop("LD_PRELOAD", None)
for cmd in ([os.path.join(venv, "bin", "syncscope"), "--version"], [vpython, "-m", "syncscope", "--version"]):
    p = run(cmd, env=env)
    check(" ".join(os.path.basename(c) for c in cmd), p.returncode == 0 and "syncscope" in p.stdout, p.stdout.strip())

# syncscope run, from the install, on a script making the .item() pattern.
script = os.path.join(work, "loop.py")
with open(script, "w") as f:
    f.write("import fake_training\nfor _ in range(30):\n    fake_training.step()\n")
p = run([os.path.join(venv, "bin", "syncscope"), "run", "-o", os.path.join(work, "t"), "--fail-on", "hidden-sync",
         "--", vpython, script], env=env)
check("syncscope run from the wheel finds the line", p.returncode == 3 and "fake_training.py:35" in p.stdout,
      "exit %d" % p.returncode)

p = run([vpython, os.path.join(here, "api_cases.py")], env=env, cwd=work)
lines = [l for l in p.stdout.splitlines() if l.startswith(("PASS", "FAIL"))]
check("the API cases ran", p.returncode == 0 and len(lines) == 7, p.stderr[-800:])
for l in lines:
    check("api: " + l.split(" ", 1)[1][:150], l.startswith("PASS"))

p = run([vpython, "-m", "pytest", "-q", "-rfE", "--junitxml", os.path.join(work, "junit.xml"), "-p", "no:cacheprovider",
         os.path.join(here, "plugin_cases.py")], env=env, cwd=work)
out = p.stdout + p.stderr
failed = set(re.findall(r"FAILED \S*::(\w+)", out))
check("the plugin fails the marked .item() test and the test that fails on its own, only those",
      failed == {"test_marked_item_fails", "test_marked_own_failure_is_reported_as_its_own"}, sorted(failed))
check("the failure names the line and its count",
      re.search(r"fake_training\.py:35: cudaMemcpyAsync\(D2H\)\+cudaStreamSynchronize, 5 calls", out) is not None,
      out[-1500:] if failures else "")
check("a test's own failure stays its own", "the test's own failure" in out)

p = run([vpython, "-m", "pytest", "-q", "--syncscope", "-p", "no:cacheprovider", "-k", "unmarked",
         os.path.join(here, "plugin_cases.py")], env=env, cwd=work)
check("--syncscope prints a summary of every test's findings",
      p.returncode == 0 and "1 test(s) recorded, 1 with findings" in p.stdout and "fake_training.py:35" in p.stdout,
      p.stdout[-800:])
p = run([vpython, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "unmarked", os.path.join(here, "plugin_cases.py")],
        env=env, cwd=work)
check("without the option, nothing extra", p.returncode == 0 and "syncscope" not in p.stdout, p.stdout[-300:])
print("%d failed" % failures)
sys.exit(1 if failures else 0)
