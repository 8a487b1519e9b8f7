"""Where two twins' recorded steps differ: per steady step, the host time in
CUDA calls by kind (allocator, syncs and copies, launches, other) and the
rest (the host's own work, and waits for autograd's thread), from each twin's
recording without a GPU timeline (the timeline's CUPTI records add a few µs
to every launch, so only recordings without it run near the plain pace).

check_whatif.py prints it beside each prediction: a fix is predicted to save
the waits and calls of the finding's sites; what the fixed twin also drops
(calls of other sites, host work) shows up here as launches and "rest".

Where the recordings hold Python line events (Python 3.12+, `syncscope run`
watches the lines of the loop that steps the optimizer), it also compares
the loop's lines: each line's time per step (from its line event to the
thread's next one), the twins' lines matched by their source text. That
says whether the fixed twin saves in the lines it changed or also in lines
both twins share (host work that runs slower after the fixed line, or a
garbage collection it set off), which the replay cannot see.

    python3 tests/gpu/twin_difference.py SYNCSCOPE BROKEN.trace FIXED.trace
    python3 tests/gpu/twin_difference.py --lockstep SYNCSCOPE LOCKSTEP.trace BROKEN_SCRIPT

The second compares the lines of one recording of the lockstep timer
(`syncscope run -- python3 tests/gpu/python/step_interleaver.py ...`):
both twins in one process, so a difference in the lines both run is not
the spread between processes that two recordings carry.
"""
import collections
import json
import os
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


def steps_by_thread(events):
    """{tid: optimizer-step markers} (the threads that step, syncscope_optimizer_step)."""
    return collections.Counter(e["tid"] for e in events if e["api"] == "syncscope_optimizer_step")


def events_of(syncscope, trace_dir):
    """The events of the recording's process that stepped most (a DataLoader's workers record no steps)."""
    out = subprocess.run([syncscope, "dump", "--events", "1000000000", "--json", trace_dir],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"syncscope dump {trace_dir}: exit {out.returncode}: {out.stderr[-300:]}")
    traces = json.loads(out.stdout)["traces"]
    return max(traces, key=lambda t: sum(steps_by_thread(t.get("events") or []).values())).get("events") or []


def per_step(events):
    """{kind: µs per step} plus "step" and "rest", over the optimizer steps between a fifth and 90% of the run
    (the steps step_timer.py times), or None without optimizer-step markers."""
    window = steady_window(events)
    if window is None:
        return None
    begin, end, steps = window
    totals = collections.Counter()
    for e in events:
        if begin <= e["start_ns"] < end and not e["api"].startswith("syncscope_"):
            totals[kind_of(e["api"])] += e["duration_ns"]
    out = {kind: totals[kind] / steps / 1e3 for kind in KINDS}
    out["step"] = (end - begin) / steps / 1e3
    # Calls of several threads can overlap: "rest" is what the calls' sum leaves of the step, not a thread's idle.
    out["rest"] = out["step"] - sum(out[kind] for kind in KINDS)
    return out


def steady_window(events, tid=None):
    """(begin_ns, end_ns, steps) over the optimizer steps (of thread `tid`, or of all) between a fifth and 90%
    of the run, or None."""
    marks = sorted(e["start_ns"] for e in events
                   if e["api"] == "syncscope_optimizer_step" and (tid is None or e["tid"] == tid))
    if len(marks) < 10:
        return None
    first, last = len(marks) // 5, int(len(marks) * 0.9)
    return marks[first], marks[last], last - first


def source_text(file, line, cache={}):  # noqa: B006 - a per-process cache of the files read
    if file not in cache:
        try:
            with open(file, encoding="utf-8", errors="replace") as f:
                cache[file] = f.read().splitlines()
        except OSError:
            cache[file] = []
    lines = cache[file]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def line_times(events, tid=None):
    """{source text: µs per step} of a stepping thread's watched lines in its steady window (`tid`, else the
    thread that stepped most): each line from its line event to the thread's next line event (a line calling a
    function holds the function's time), or None without line events. A line not found in its file is keyed
    by file:line. Where another stepping thread ran watched lines in between (the lockstep timer's other twin,
    whose turn this thread waited out), the line is left out."""
    steppers = steps_by_thread(events)
    if not steppers:
        return None
    if tid is None:
        tid = steppers.most_common(1)[0][0]
    window = steady_window(events, tid)
    if window is None:
        return None
    lines = sorted((e for e in events if e["api"] == "syncscope_python_line" and "python" in e),
                   key=lambda e: e["start_ns"])
    begin, end, steps = window
    totals = collections.Counter()
    here = None  # the thread's line running, and whether another thread's line came since it began
    for e in lines:
        if e["tid"] != tid:
            if here and e["tid"] in steppers:
                here[1] = True
            continue
        if here and not here[1] and begin <= here[0]["start_ns"] < end and here[0]["python"]["line"] != 0:
            file, line = here[0]["python"]["file"], here[0]["python"]["line"]  # line 0: the frame returns
            key = source_text(file, line) or f"{os.path.basename(file)}:{line}"
            totals[key] += e["start_ns"] - here[0]["start_ns"]
        here = [e, False]
    return {key: ns / steps / 1e3 for key, ns in totals.items()} or None


def lockstep_lines(syncscope, trace_dir, broken_script):
    """{"broken": line_times, "fixed": line_times} of one recording of the lockstep timer
    (tests/gpu/python/step_interleaver.py), whose two stepping threads run the twins: the broken one is the
    thread whose watched lines include BROKEN_SCRIPT's (by file name). Both twins in one process, taking
    turns, so what drifts between processes falls on both alike."""
    events = events_of(syncscope, trace_dir)
    threads = [tid for tid, n in steps_by_thread(events).most_common(2) if n >= 10]
    if len(threads) != 2:
        raise ValueError(f"{trace_dir}: {len(threads)} threads stepped 10 times or more, not the twins' 2")
    name = os.path.basename(broken_script)
    files = {tid: {os.path.basename(e["python"]["file"]) for e in events
                   if e["tid"] == tid and e["api"] == "syncscope_python_line" and "python" in e} for tid in threads}
    broken = [tid for tid in threads if name in files[tid]]
    if len(broken) != 1:
        raise ValueError(f"{trace_dir}: {len(broken)} stepping threads ran lines of {name}, not 1")
    fixed = next(tid for tid in threads if tid != broken[0])
    return {"broken": line_times(events, broken[0]), "fixed": line_times(events, fixed)}


def difference(syncscope, broken_trace, fixed_trace):
    """{"broken": per_step, "fixed": per_step, "lines": {"broken": line_times, "fixed": line_times}} or None
    where either twin has no step markers."""
    broken_events, fixed_events = events_of(syncscope, broken_trace), events_of(syncscope, fixed_trace)
    broken, fixed = per_step(broken_events), per_step(fixed_events)
    if broken is None or fixed is None:
        return None
    return {"broken": broken, "fixed": fixed,
            "lines": {"broken": line_times(broken_events), "fixed": line_times(fixed_events)}}


# Lines whose time per step differs by less than this are left out of the line comparison.
LINE_SHOWN_US = 5.0


def line_text(lines):
    """The watched lines whose time differs between the twins, largest difference first: "+612 µs
    torch.save(...) (only in the broken twin)". Empty without line events in both."""
    broken, fixed = lines.get("broken"), lines.get("fixed")
    if not broken or not fixed:
        return []
    rows = []
    for key in set(broken) | set(fixed):
        b, f = broken.get(key), fixed.get(key)
        delta = (b or 0.0) - (f or 0.0)
        if abs(delta) < LINE_SHOWN_US:
            continue
        where = "" if b is not None and f is not None else \
            " (only in the broken twin)" if f is None else " (only in the fixed twin)"
        rows.append((delta, f"{delta:+.0f} µs {key[:70]}{where}"))
    shared = sum((broken[k] - fixed[k]) for k in set(broken) & set(fixed))
    rows.sort(key=lambda r: -abs(r[0]))
    return [f"lines, broken - fixed per step (lines both twins run: {shared:+.0f} µs):"] + [r[1] for r in rows]


def text(diff):
    b, f = diff["broken"], diff["fixed"]
    parts = [f"{kind} {b[kind] - f[kind]:+.0f}" for kind in KINDS + ("rest",) if abs(b[kind] - f[kind]) >= 1]
    out = f"recorded without timeline {b['step']:.0f} -> {f['step']:.0f} µs ({b['step'] - f['step']:+.0f}: " \
        + ", ".join(parts) + ")"
    lines = line_text(diff.get("lines") or {})
    return out + "".join("\n      " + line for line in lines)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--lockstep":
        print("\n".join(line_text(lockstep_lines(*sys.argv[2:]))) or "no line events in one of the twins")
        sys.exit(0)
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    result = difference(*sys.argv[1:])
    if result is None:
        sys.exit("no optimizer-step markers in one of the recordings")
    print(text(result))
    print(json.dumps(result, indent=1))
