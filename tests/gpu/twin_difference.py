"""Where two twins' recorded steps differ: per steady step, the host time in
CUDA calls by kind (allocator, syncs and copies, launches, other) and the
rest (the host's own work, and waits for autograd's thread), from each twin's
recording without a GPU timeline (the timeline's CUPTI records add a few µs
to every launch, so only recordings without it run near the plain pace).

check_whatif.py prints it beside each prediction: a fix is predicted to save
the waits and calls of the finding's sites; what the fixed twin also drops
(calls of other sites, host work) shows up here as launches and "rest".

    python3 tests/gpu/twin_difference.py SYNCSCOPE BROKEN.trace FIXED.trace
"""
import collections
import json
import subprocess
import sys

ALLOCATOR_PREFIXES = ("cudaMalloc", "cudaFree", "cuMemAlloc", "cuMemFree", "cuMemCreate", "cuMemMap", "cuMemUnmap",
                      "cuMemRelease", "cuMemAddress", "cuMemSetAccess", "cudaHostAlloc", "cudaFreeHost")
KINDS = ("allocator", "syncs and copies", "launches", "other calls")


def kind_of(api):
    if api.startswith(ALLOCATOR_PREFIXES):
        return "allocator"
    if "Synchronize" in api or "Memcpy" in api or "Memset" in api or api.startswith(("cudaEventQuery", "cuEventQuery")):
        return "syncs and copies"
    if "Launch" in api:
        return "launches"
    return "other calls"


def events_of(syncscope, trace_dir):
    """The events of the recording's process that stepped most (a DataLoader's workers record no steps)."""
    out = subprocess.run([syncscope, "dump", "--events", "1000000000", "--json", trace_dir],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"syncscope dump {trace_dir}: exit {out.returncode}: {out.stderr[-300:]}")
    traces = json.loads(out.stdout)["traces"]
    steps = lambda t: sum(1 for e in t.get("events") or [] if e["api"] == "syncscope_optimizer_step")  # noqa: E731
    return max(traces, key=steps).get("events") or []


def per_step(events):
    """{kind: µs per step} plus "step" and "rest", over the optimizer steps between a fifth and 90% of the run
    (the steps step_timer.py times), or None without optimizer-step markers."""
    events = sorted(events, key=lambda e: e["start_ns"])
    marks = [e["start_ns"] for e in events if e["api"] == "syncscope_optimizer_step"]
    if len(marks) < 10:
        return None
    first, last = len(marks) // 5, int(len(marks) * 0.9)
    begin, end, steps = marks[first], marks[last], last - first
    totals = collections.Counter()
    for e in events:
        if begin <= e["start_ns"] < end and not e["api"].startswith("syncscope_"):
            totals[kind_of(e["api"])] += e["duration_ns"]
    out = {kind: totals[kind] / steps / 1e3 for kind in KINDS}
    out["step"] = (end - begin) / steps / 1e3
    # Calls of several threads can overlap: "rest" is what the calls' sum leaves of the step, not a thread's idle.
    out["rest"] = out["step"] - sum(out[kind] for kind in KINDS)
    return out


def difference(syncscope, broken_trace, fixed_trace):
    """{"broken": per_step, "fixed": per_step} or None where either twin has no step markers."""
    broken, fixed = per_step(events_of(syncscope, broken_trace)), per_step(events_of(syncscope, fixed_trace))
    if broken is None or fixed is None:
        return None
    return {"broken": broken, "fixed": fixed}


def text(diff):
    b, f = diff["broken"], diff["fixed"]
    parts = [f"{kind} {b[kind] - f[kind]:+.0f}" for kind in KINDS + ("rest",) if abs(b[kind] - f[kind]) >= 1]
    return f"recorded without timeline {b['step']:.0f} -> {f['step']:.0f} µs ({b['step'] - f['step']:+.0f}: " \
           + ", ".join(parts) + ")"


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    result = difference(*sys.argv[1:])
    if result is None:
        sys.exit("no optimizer-step markers in one of the recordings")
    print(text(result))
    print(json.dumps(result, indent=1))
