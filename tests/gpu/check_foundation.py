#!/usr/bin/env python3
"""GPU proof for the recording foundation (issue 2), run on a GPU machine.

Records the CUDA C++ examples and three PyTorch scripts with the real CUDA
runtime through `syncscope run`, reads the traces with `syncscope dump
--json`, and checks what must be seen. Prints a table of check / expected /
observed / verdict and exits non-zero if any check fails.

    tests/gpu/check_foundation.py BUNDLE_DIR [OUT_DIR]

BUNDLE_DIR holds bin/syncscope, lib/libsyncscope.so and
examples/ (scripts/make-bundle.sh makes it).
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bundle = os.path.abspath(sys.argv[1])
out_root = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/syncscope-gpu")
os.makedirs(out_root, exist_ok=True)
results = []


def record(name, argv, env=None):
    trace_dir = os.path.join(out_root, name)
    subprocess.run(["rm", "-rf", trace_dir], check=True)
    full_env = dict(os.environ, **(env or {}))
    t0 = time.time()
    proc = subprocess.run([f"{bundle}/bin/syncscope", "run", "--no-report", "-o", trace_dir, "--"] + argv,
                          env=full_env, capture_output=True, text=True, timeout=300)
    wall = time.time() - t0
    print(f"--- {name}: exit {proc.returncode} in {wall:.1f}s; {proc.stdout.strip()[-300:]}", flush=True)
    if proc.returncode != 0:
        print(proc.stderr[-3000:], flush=True)
    # One JSON document: {"traces": [...], "errors": [...]}; the readable
    # traces are there even when another could not be read (exit status 1).
    stats = subprocess.run([f"{bundle}/bin/syncscope", "dump", "--json", trace_dir], capture_output=True, text=True)
    traces = json.loads(stats.stdout)["traces"] if stats.stdout.strip() else []
    if stats.returncode != 0:
        print(stats.stderr, flush=True)
    return proc.returncode, traces


def api(traces, name):
    merged = {"count": 0, "bytes": 0, "host_ns": 0, "copies": {}, "stack_symbols": []}
    for t in traces:
        a = t.get("apis", {}).get(name)
        if not a:
            continue
        merged["count"] += a["count"]
        merged["bytes"] += a["bytes"]
        merged["host_ns"] += a["host_ns"]
        for k, v in a.get("copies", {}).items():
            merged["copies"][k] = merged["copies"].get(k, 0) + v
        merged["stack_symbols"] += a.get("stack_symbols", [])
    return merged


def check(scenario, what, expected, observed, ok):
    results.append((scenario, what, str(expected), str(observed), "PASS" if ok else "FAIL"))


def has_symbol(symbols, needle):
    return any(needle in s for s in symbols)


# ---- CUDA C++ examples, real runtime ----
ex = f"{bundle}/examples"
rc, t = record("hidden_sync_loop", [f"{ex}/hidden_sync_loop", "200"])
check("hidden_sync_loop", "exit code", 0, rc, rc == 0)
check("hidden_sync_loop", "runtime", "real", t[0]["cuda_runtime"] if t else None, bool(t) and t[0]["cuda_runtime"] == "real")
s = api(t, "cudaStreamSynchronize")
check("hidden_sync_loop", "cudaStreamSynchronize calls", ">=200", s["count"], s["count"] >= 200)
check("hidden_sync_loop", "sync stack names read_loss_value", True, has_symbol(s["stack_symbols"], "read_loss_value"),
      has_symbol(s["stack_symbols"], "read_loss_value"))
c = api(t, "cudaMemcpyAsync")
check("hidden_sync_loop", "D2H pinned copies", ">=200", c["copies"].get("D2H/pinned", 0), c["copies"].get("D2H/pinned", 0) >= 200)

rc, t = record("pageable_copy_loop", [f"{ex}/pageable_copy_loop", "200"])
c = api(t, "cudaMemcpyAsync")
check("pageable_copy_loop", "H2D pageable copies", ">=200", c["copies"].get("H2D/pageable", 0), c["copies"].get("H2D/pageable", 0) >= 200)
per_copy_us = c["host_ns"] / max(c["count"], 1) / 1000
check("pageable_copy_loop", "host µs per 1 MiB pageable async copy", ">20", f"{per_copy_us:.1f}", per_copy_us > 20)

rc, t = record("alloc_churn_loop", [f"{ex}/alloc_churn_loop", "200"])
m, f = api(t, "cudaMalloc"), api(t, "cudaFree")
check("alloc_churn_loop", "cudaMalloc / cudaFree calls", ">=200 each", f"{m['count']} / {f['count']}", m["count"] >= 200 and f["count"] >= 200)

rc, t = record("api_tour", [f"{ex}/api_tour"])
check("api_tour", "exit code", 0, rc, rc == 0)
seen = set()
for tr in t:
    seen |= set(tr.get("apis", {}).keys())
expected_apis = json.load(open(os.path.join(ROOT, "tests", "gpu", "api_tour_expected.json")))
missing = sorted(a for a in expected_apis if a not in seen)
check("api_tour", "APIs seen", len(expected_apis), len(expected_apis) - len(missing), not missing)
if missing:
    print("api_tour: not seen:", missing)
for name, want in expected_apis.items():
    got = api(t, name)["count"]
    check("api_tour", f"{name} calls", want, got, got == want)

rc, t = record("fork_child", [f"{ex}/fork_child"])
check("fork_child", "traces (parent + child)", 2, len(t), rc == 0 and len(t) == 2)
child = [tr for tr in t if "cudaMalloc" in tr.get("apis", {}) and len(tr["apis"]) == 1]
check("fork_child", "child's own cudaMalloc recorded (failing: CUDA after fork)", 1,
      len(child), len(child) == 1)

# ---- PyTorch ----
rc, t = record("torch_add_loop", ["python3", os.path.join(ROOT, "examples/pytorch/add_loop.py"), "20000"])
l, lk = api(t, "__cudaLaunchKernel"), api(t, "cudaLaunchKernel")
check("torch add_ x20000", "__cudaLaunchKernel launches", "20000..20010", l["count"], 20000 <= l["count"] <= 20010)
check("torch add_ x20000", "cudaLaunchKernel launches", 0, lk["count"], lk["count"] == 0)
dropped = sum(tr["events_dropped"] for tr in t)
check("torch add_ x20000", "dropped events", 0, dropped, dropped == 0)

rc, t = record("torch_item_sync", ["python3", os.path.join(ROOT, "examples/pytorch/item_sync.py"), "200"])
c, s = api(t, "cudaMemcpyAsync"), api(t, "cudaStreamSynchronize")
d2h = c["copies"].get("D2H/pinned", 0) + c["copies"].get("D2H/pageable", 0)
check("torch .item() x200", "D2H cudaMemcpyAsync", ">=200", f"{d2h} {c['copies']}", d2h >= 200)
check("torch .item() x200", "cudaStreamSynchronize", ">=200", s["count"], s["count"] >= 200)
check("torch .item() x200", "sync stack symbols (sample)", "libtorch frames", sorted(s["stack_symbols"])[:6], len(s["stack_symbols"]) > 0)

rc, t = record("torch_pageable_copy", ["python3", os.path.join(ROOT, "examples/pytorch/pageable_copy.py"), "100"])
c = api(t, "cudaMemcpyAsync")
h2d = c["copies"].get("H2D/pageable", 0)
check("torch pageable .to(non_blocking)", "H2D pageable cudaMemcpyAsync", ">=100", f"{h2d} {c['copies']}", h2d >= 100)

results = [tuple(c if len(c) <= 90 else c[:87] + "..." for c in r) for r in results]
width = [max(len(r[i]) for r in results) for i in range(5)]
header = ("scenario", "check", "expected", "observed", "verdict")
width = [max(w, len(h)) for w, h in zip(width, header)]
for row in [header] + results:
    print("  ".join(cell.ljust(w) for cell, w in zip(row, width)))
failed = sum(r[4] == "FAIL" for r in results)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
