#!/usr/bin/env python3
"""GPU proof for aggregated launches (issue 15, docs/trace-format.md,
`kLaunchRuns`), run on a GPU machine: each realistic training program and a
few of the small examples recorded twice, `--detail full` and the default
(launches aggregated into runs), the two reports compared.

  findings   the same steady findings: category, cause, site fingerprint,
             phase name, count (the programs are deterministic), per step
             within 2%
  steps      the same step source and step count
  phases     the same phases: name, step source, steps, calls per step
  trace      the default trace says `trace.detail aggregated`, holds runs,
             and is smaller than the full one (the ratio is printed)
  folded     the aggregated trace reported again folded, as a trace past
             SYNCSCOPE_FOLD_ABOVE_CALLS is (0 here: fold whatever can be),
             gives the same steps and findings as `--detail full`
  windows    the aggregated trace read and analysed in windows of 20,000
             events, as a trace past SYNCSCOPE_WINDOW_EVENTS is: the same
             phases and findings as read whole

    tests/gpu/check_aggregation.py BUNDLE_DIR [OUT_DIR]

Prints PASS/FAIL lines and exits non-zero if any check fails.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples", "pytorch")
PROGRAMS = [os.path.join(EX, "realistic", p) for p in
            ("cnn_meter.py", "transformer_lm.py", "grad_accum.py", "compiled_model.py", "dataloader_workers.py",
             "lstm_lm.py", "varlen_batches.py")] + \
           [os.path.join(EX, p) for p in ("item_sync.py", "launch_bound.py", "timed_training.py")]

# Steps of fewer launches between other calls than the recorder's shortest
# run (kMinRun, 16: item_sync's ~10 launches between two .item()s) keep every
# launch: no runs, the trace no smaller.
SHORT_STRETCHES = {"item_sync"}
# torch.compile'd programs compile in their first run and read inductor's
# cache in later ones (no autotuning sync then): run once untraced first so
# that both recordings see the same program.
COMPILES = {"compiled_model"}

bundle = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/syncscope-gpu-aggregation")
os.makedirs(out, exist_ok=True)
SYNCSCOPE = os.path.join(bundle, "bin", "syncscope")
failures = 0


def check(name, ok, detail):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)


def record(name, detail):
    traces = os.path.join(out, f"t-{name}-{detail}")
    report = os.path.join(out, f"{name}-{detail}.json")
    cmd = [SYNCSCOPE, "run", "--detail", detail, "--force", "-o", traces, "--format", "text",
           "--format", "json=" + report, "--", sys.executable, PROGRAM_OF[name]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=os.path.dirname(PROGRAM_OF[name]))
    with open(os.path.join(out, f"{name}-{detail}.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    r = json.load(open(report)) if os.path.exists(report) else {"processes": []}
    procs = [x for x in r["processes"] if x.get("launches", 0) > 0]
    size = sum(os.path.getsize(os.path.join(traces, f)) for f in os.listdir(traces) if f.endswith(".sstrace")) \
        if os.path.isdir(traces) else 0
    return procs[0] if procs else {}, size


def report_folded(name, how="folded"):
    """The aggregated trace reported again, folded (each run one event), or
    read and analysed in windows of 20,000 events as a trace past
    SYNCSCOPE_WINDOW_EVENTS is (several windows even for these short runs)."""
    traces = os.path.join(out, f"t-{name}-aggregated")
    report = os.path.join(out, f"{name}-{how}.json")
    env = dict(os.environ, SYNCSCOPE_FOLD_ABOVE_CALLS="0") if how == "folded" else \
        dict(os.environ, SYNCSCOPE_WINDOW_EVENTS="20000")
    p = subprocess.run([SYNCSCOPE, "report", "--format", "text", "--format", "json=" + report, traces],
                       capture_output=True, text=True, timeout=300, env=env)
    with open(os.path.join(out, f"{name}-{how}.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    r = json.load(open(report)) if os.path.exists(report) else {"processes": []}
    procs = [x for x in r["processes"] if x.get("launches", 0) > 0]
    return procs[0] if procs else {}


def phases(proc):
    """Each phase's name, step source, steps and calls per step."""
    return [(p["name"], p["source"], p["steps"], p["calls_per_step"]) for p in proc.get("phases", [])]


def same_phases(a, b, exact):
    pa, pb = phases(a), phases(b)
    if exact or len(pa) != len(pb):
        return pa == pb
    return all(x[:3] == y[:3] and abs(x[3] - y[3]) <= 0.05 * y[3] for x, y in zip(pa, pb))


def identities(proc):
    """Steady findings by category, cause, site fingerprint and phase, with
    their count and per-step figure. A fingerprint names the user's line
    (policy/baseline.h), so two findings at one line reached from two callers
    (lstm_lm: val and test evaluate() share line 102) add up: which caller's
    finding holds a pattern phase's boundary step varies between recordings."""
    out = {}
    for f in proc.get("findings", []):
        if f.get("phase") != "steady":
            continue
        key = (f["category"], f["cause"], f["fingerprint"], f.get("phase_name"))
        count, per_step = out.get(key, (0, 0.0))
        out[key] = (count + f["count"], per_step + f["per_step"])
    return out


def same_findings(a_proc, b_proc):
    """Same findings, counts equal and per-step figures within 2%; (ok, note)."""
    a, b = identities(a_proc), identities(b_proc)
    if a.keys() != b.keys():
        return False, f"only one side: {sorted(set(a) - set(b))} / {sorted(set(b) - set(a))}"
    differ = {k[2]: (a[k], b[k]) for k in a
              if a[k][0] != b[k][0] or abs(a[k][1] - b[k][1]) > 0.02 * max(b[k][1], 1e-9)}
    return not differ, f"differ: {differ}" if differ else ""


PROGRAM_OF = {os.path.splitext(os.path.basename(p))[0]: p for p in PROGRAMS}
only = set(filter(None, os.environ.get("ONLY", "").split(",")))  # ONLY=a,b: just these programs
for name in PROGRAM_OF:
    if only and name not in only:
        continue
    if name in COMPILES:
        subprocess.run([sys.executable, PROGRAM_OF[name]], capture_output=True, timeout=300,
                       cwd=os.path.dirname(PROGRAM_OF[name]))
    full, full_size = record(name, "full")
    folded, folded_size = record(name, "aggregated")
    if not full or not folded:
        check(f"{name}: recorded", False, "no process with launches in one of the reports")
        continue
    check(f"{name}: detail", folded.get("trace_detail") == "aggregated" and full.get("trace_detail") == "full",
          f"{folded.get('trace_detail')!r} / {full.get('trace_detail')!r}")
    short = name in SHORT_STRETCHES
    check(f"{name}: runs", (folded.get("aggregated_launches", 0) > 0) != short,
          f"{folded.get('aggregated_launches', 0)} calls in runs ({folded.get('launches')} launches; async memsets fold too)"
          + (" (expected none: stretches under 16 launches)" if short else ""))
    check(f"{name}: steps", (folded["steps"]["count"], folded["steps"]["detected"]) ==
          (full["steps"]["count"], full["steps"]["detected"]),
          f"{folded['steps']['count']} vs {full['steps']['count']} steps")
    # cudnn.benchmark (cnn_meter) picks kernels by timing them, afresh in
    # each process: the two recordings' own calls may differ, and then a
    # phase's calls per step can only agree roughly.
    same_program = folded.get("api_counts") == full.get("api_counts")
    check(f"{name}: phases", same_phases(folded, full, same_program), f"{phases(folded)} vs {phases(full)}"
          + ("" if same_program else " (the program's own calls differ between the recordings: calls per step within 5%)"))
    same, note = same_findings(folded, full)
    check(f"{name}: findings", same, f"{len(identities(folded))} steady findings aggregated, "
          f"{len(identities(full))} full" + (f"; {note}" if note else ""))
    refolded = report_folded(name)
    same_folded, note = same_findings(refolded, full) if refolded else (False, "no report")
    same_folded = same_folded and same_phases(refolded, full, same_program)
    check(f"{name}: folded", same_folded,
          f"{phases(refolded)}, {len(identities(refolded))} steady findings read folded" + (f"; {note}" if note else ""))
    windowed = report_folded(name, "windowed")
    same_windowed, note = same_findings(windowed, folded) if windowed else (False, "no report")
    same_windowed = same_windowed and phases(windowed) == phases(folded)
    check(f"{name}: windows", same_windowed,
          f"{windowed.get('read_in_windows')} windows: {phases(windowed)}, {len(identities(windowed))} steady findings"
          + (f"; {note}" if note else ""))
    check(f"{name}: size", (0 < folded_size < full_size) if not short else
          abs(folded_size - full_size) <= 0.05 * full_size,
          f"{folded_size / 1e6:.2f} MB aggregated, {full_size / 1e6:.2f} MB full "
          f"(x{full_size / max(folded_size, 1):.1f} smaller)")

print(f"check_aggregation: {failures} failed", flush=True)
sys.exit(1 if failures else 0)
