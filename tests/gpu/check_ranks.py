#!/usr/bin/env python3
"""GPU proof for every process of a job (issue 4): `syncscope run` around
`torchrun --nproc-per-node 2 tests/gpu/torchrun_ranks.py`; checks a section
per rank, the straggler's extra .item() at its line for rank 1 only, rank 1
flagged across processes, and the gate's exit statuses on the recording.

    tests/gpu/check_ranks.py BUNDLE OUT_DIR
"""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bundle = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
os.makedirs(out, exist_ok=True)
syncscope = os.path.join(bundle, "bin", "syncscope")
script = os.path.join(ROOT, "tests", "gpu", "torchrun_ranks.py")
torchrun = [shutil.which("torchrun")] if shutil.which("torchrun") else [sys.executable, "-m", "torch.distributed.run"]
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}  {name}  {detail}", flush=True)


trace_dir = os.path.join(out, "ranks-traces")
json_path = os.path.join(out, "ranks.json")
run = subprocess.run([syncscope, "run", "--force", "-o", trace_dir, "--format", "text", "--format",
                      f"json={json_path}", "--", *torchrun, "--nproc-per-node", "2", script, "40"],
                     capture_output=True, text=True, timeout=500, cwd=ROOT)
open(os.path.join(out, "ranks.txt"), "w").write(run.stdout + run.stderr)
check("torchrun under syncscope exits 0", run.returncode == 0, f"exit {run.returncode}: {run.stderr[-500:]}")
report = json.load(open(json_path))
processes = {p.get("rank"): p for p in report["processes"]}
check("one CUDA process per rank", sorted(k for k in processes if k) == ["0", "1"], str(sorted(map(str, processes))))
check("the launcher is counted, not listed", report["processes_without_cuda"] >= 1,
      f"{report['processes_without_cuda']} without CUDA")


def steady_lines(p):
    return sorted({(f["category"], (f.get("user_frame") or {}).get("line")) for f in p["findings"]
                   if f["phase"] == "steady" and os.path.basename((f.get("user_frame") or {}).get("file") or "") ==
                   "torchrun_ranks.py"})


lines = {r: steady_lines(p) for r, p in processes.items() if r}
print("steady findings per rank:", lines)
check("rank 0: .item() at line 24 only", lines.get("0") == [("hidden-sync", 24)], str(lines.get("0")))
check("rank 1: .item() at 24 and the straggler's at 26", lines.get("1") == [("hidden-sync", 24), ("hidden-sync", 26)],
      str(lines.get("1")))
outliers = [o for o in report["across_processes"]["outliers"] if o["rank"] == "1"]
check("rank 1 stands out", bool(outliers), json.dumps(report["across_processes"]))
print("syncs per step:", {r: round(p["sync_calls_per_step"], 2) for r, p in processes.items() if r})

strict = subprocess.run([syncscope, "report", trace_dir, "--budget", "hidden-sync=1/step"], capture_output=True, text=True)
tail = strict.stdout[strict.stdout.rfind("gate: FAIL"):] if "gate: FAIL" in strict.stdout else ""
check("budget 1/step fails (exit 3) naming rank 1 only", strict.returncode == 3 and "rank 1" in tail and "rank 0" not in tail,
      f"exit {strict.returncode}: {tail.strip()[:300]}")
loose = subprocess.run([syncscope, "report", trace_dir, "--budget", "hidden-sync=2/step"], capture_output=True, text=True)
check("budget 2/step passes (exit 0)", loose.returncode == 0, f"exit {loose.returncode}")
print(f"{failures} failed")
sys.exit(1 if failures else 0)
