#!/usr/bin/env python3
"""GPU proof for the detectors (issue 3): records every PyTorch example in
examples/pytorch through `syncscope run --format json=FILE`, and checks that
each line marked `# expect: CATEGORY` is reported there in steady state, and
that fixed twins (`*_fixed.py`) and the clean reference have no steady-state
finding. Prints a table of expected / found / missed / unexpected per script.

    tests/gpu/check_findings.py BUNDLE_DIR OUT_DIR [SCRIPT...]
"""
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "pytorch")
SKIP = {"_common.py", "add_loop.py", "item_sync.py", "pageable_copy.py",  # issue-2 recordings
        "long_training.py"}  # attach (check_attach.py)
bundle = os.path.abspath(sys.argv[1])
out_dir = os.path.abspath(sys.argv[2])
only = sys.argv[3:]
os.makedirs(out_dir, exist_ok=True)


def expectations(path):
    marks = set()
    with open(path) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"#\s*expect:\s*([a-z-]+)", text)
            if m:
                marks.add((m.group(1), number))
    return marks


rows, failures = [], 0
scripts = sorted(s for s in os.listdir(EXAMPLES) if s.endswith(".py") and s not in SKIP)
for script in scripts:
    if only and script not in only:
        continue
    path = os.path.join(EXAMPLES, script)
    name = script[:-3]
    json_path = os.path.join(out_dir, name + ".json")
    trace_dir = os.path.join(out_dir, "traces", name)
    t0 = time.time()
    proc = subprocess.run([f"{bundle}/bin/syncscope", "run", "--force", "--no-report", "-o", trace_dir,
                           "--format", f"json={json_path}", "--", "python3", path, "40"],
                          capture_output=True, text=True, cwd=EXAMPLES, timeout=400)
    took = time.time() - t0
    expected = expectations(path)
    found, unexpected = set(), []
    if proc.returncode != 0 or not os.path.exists(json_path):
        proc = proc if proc.returncode != 0 else subprocess.CompletedProcess(proc.args, 99, "", "no JSON report written")
        print(f"--- {script}: exit {proc.returncode}\n{proc.stderr[-2000:]}", flush=True)
    else:
        report = json.load(open(json_path))
        for process in report["processes"]:
            for f in process["findings"]:
                if f["phase"] != "steady":
                    continue
                user = f.get("user_frame") or {}
                here = os.path.realpath(user.get("file") or "") == os.path.realpath(path)
                key = (f["category"], user.get("line")) if here else None
                if key in expected:
                    found.add(key)
                else:
                    where = f"{os.path.basename(user.get('file') or '?')}:{user.get('line')}"
                    unexpected.append(f"{f['category']}@{where}({f['cause']},{f['per_step']:.2f}/step)")
    missed = expected - found
    clean_required = not expected
    ok = not missed and not (clean_required and unexpected) and proc.returncode == 0
    failures += not ok
    fmt = lambda s: ", ".join(f"{c}:{l}" for c, l in sorted(s)) or "-"
    rows.append((script, fmt(expected), fmt(found), fmt(missed), "; ".join(unexpected[:3]) or "-",
                 "PASS" if ok else "FAIL", f"{took:.0f}s"))
    print(f"--- {script}: {'PASS' if ok else 'FAIL'} in {took:.0f}s", flush=True)

header = ("script", "expected", "found", "missed", "unexpected (steady)", "verdict", "time")
width = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
for row in [header] + rows:
    print(" | ".join(c.ljust(w) for c, w in zip(row, width)))
print(f"{len(rows) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
