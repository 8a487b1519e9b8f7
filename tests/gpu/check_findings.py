#!/usr/bin/env python3
"""GPU proof for the detectors (issues 3 and 11): records every PyTorch example
in examples/pytorch and examples/pytorch/realistic through
`syncscope run --fail-on hidden-sync --format json=FILE -- python3 SCRIPT 40`
and checks, per script:

- each line marked `# expect: ...` is reported there (finding's user_frame is
  that file and line) in steady state, with the mark's options (below);
- fixed twins (`*_fixed.py`) and the clean references (no mark) have no
  steady-state finding at all;
- the exit status: 3 (the gate failed) for a script with a hidden-sync mark,
  0 for a script without marks; a script whose marks are all of other
  categories may give either. Any other status is a failure (the script's own
  status is 0).

Marks: `# expect: CATEGORY [every=N] [per_step=X|any] [phase=eval] [via=backward] [op=OPERATION]`
- op=OPERATION: every finding at the line has that `operation` (item, bool,
  nonzero, copy-to-device-pinned, copy-to-device-pageable, list-index, copy-to-host,
  synchronize, free, allocator, format: docs/findings-schema.md, "Operations").
- per_step=X: the finding's per_step must be within 10% of X. Without it, a
  mark with every=N expects 1/N, and any other mark in realistic/ expects 1.0;
  marks of the older examples without options are only looked for (their
  per_step is not checked). per_step=any: not checked.
- every=N: the site recurs every N training steps. Besides per_step within
  10%, the finding passes if its `every_n_steps` is N, or if its `count` is
  k x (X * N) within 10% for a k that N-periodic work can have in the run's
  steady steps (floor or ceil of steps / N): a short run holds few periods.
- phase=eval: the finding belongs to an evaluation phase (its `phase_name`
  starts with "eval", any `phase`), and per_step counts per eval step.
  Other marks need `phase` "steady" and a `phase_name`, when present, that is
  not an eval phase.
- via=backward: the work happened on a thread without Python frames (autograd's
  backward thread) while the marked line waited: the finding must carry a
  `waiter` object with a `tid` (other than the finding's own thread's).
Several findings at one line and in one phase (e.g. different native stacks)
are summed. A first-lines header `# syncscope-env: VAR=VALUE ...` runs the
script a second time with those variables set.

    tests/gpu/check_findings.py BUNDLE_DIR OUT_DIR [--jobs N] [SCRIPT...]

SCRIPT picks scripts by file name (`item_logging.py`, `lstm_lm`) or by path
under examples/pytorch (`realistic/lstm_lm.py`). --jobs runs that many
recordings at once (default 2, all on the one GPU: about 5.5 minutes for the
47 recordings on an H100, against about 10 one at a time; --jobs 1 when
timings matter).
"""
import argparse
import collections
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "pytorch")
FOLDERS = ["", "realistic"]  # under EXAMPLES
SKIP = {"_common.py", "add_loop.py", "item_sync.py", "pageable_copy.py",  # issue-2 recordings
        "long_training.py",  # attach (check_attach.py)
        "timed_training.py"}  # overhead (gpu_overhead.sh)
STEPS_ARG = "40"
TOLERANCE = 0.10
GATE_EXIT = 3

MARK = re.compile(r"#\s*expect:\s*(.+?)\s*$")
CLAUSE = re.compile(r"^([a-z-]+)((?:\s+[a-z_]+=\S+)*)$")
ENV_HEADER = re.compile(r"^#\s*syncscope-env:\s*(.+?)\s*$")
Mark = collections.namedtuple("Mark", "category line every per_step phase via op")


def parse_marks(path, realistic):
    """Returns (marks, env_runs, errors)."""
    marks, env_runs, errors = [], [], []
    with open(path) as f:
        lines = f.read().splitlines()
    for number, text in enumerate(lines, 1):
        header = ENV_HEADER.match(text) if number <= 5 else None
        if header:
            pairs = header.group(1).split()
            if all("=" in p for p in pairs):
                env_runs.append(dict(p.split("=", 1) for p in pairs))
            else:
                errors.append(f"line {number}: bad syncscope-env header (VAR=VALUE ...)")
        if "expect:" not in text:
            continue
        m = MARK.search(text)
        clauses = [CLAUSE.match(c.strip()) for c in m.group(1).split(";")] if m else [None]
        if not all(clauses):
            errors.append(f"line {number}: unreadable mark")
            continue
        for clause in clauses:
            mark = parse_clause(clause, number, realistic, errors)
            if mark:
                marks.append(mark)
    return marks, env_runs, errors


def parse_clause(m, number, realistic, errors):
    """One `CATEGORY [option=value ...]` of a mark; several are separated by ';'."""
    options = dict(o.split("=", 1) for o in m.group(2).split())
    unknown = set(options) - {"every", "per_step", "phase", "via", "op"}
    every = per_step = None
    try:
        every = int(options["every"]) if "every" in options else None
        if options.get("per_step", "any") != "any":
            per_step = float(options["per_step"])
    except ValueError:
        unknown.add("every/per_step value")
    if every is not None and every < 2:
        unknown.add("every<2")
    if options.get("phase", "eval") != "eval" or options.get("via", "backward") != "backward":
        unknown.add("phase/via value")
    if unknown:
        errors.append(f"line {number}: bad mark option(s) {sorted(unknown)}")
        return None
    if "per_step" not in options:
        if every:
            per_step = 1.0 / every
        elif realistic or options:
            per_step = 1.0
    return Mark(m.group(1), number, every, per_step, options.get("phase"), options.get("via"), options.get("op"))


def steady_steps(process):
    steps = process.get("steps") or {}
    return (steps.get("count") or 0) if steps.get("detected", True) else 0


def check_group(mark, group, steps):
    """group: findings at the mark's line and category, in one process and phase.
    Returns (ok, note)."""
    per_step = sum(f.get("per_step") or 0 for f in group)
    count = sum(f.get("count") or 0 for f in group)
    phase_name = group[0].get("phase_name")
    where = f"{mark.category}:{mark.line}" + (f"[{phase_name}]" if phase_name else "")
    problems = []
    is_eval = (phase_name or "").startswith("eval")
    if mark.phase == "eval" and not is_eval:
        problems.append(f"phase_name {phase_name!r}, expected an eval phase"
                        + ("" if phase_name else " (the finding has no phase_name)"))
    if mark.phase != "eval" and is_eval:
        problems.append(f"phase_name {phase_name!r}: in an eval phase, expected the training phase")
    if mark.via == "backward":
        waiters = [f for f in group if isinstance(f.get("waiter"), dict) and f["waiter"].get("tid") is not None]
        if not waiters:
            problems.append("no `waiter` with a tid: not attributed through the thread waiting in backward()")
        elif all(f["waiter"]["tid"] == (f.get("thread") or {}).get("tid") for f in waiters):
            problems.append("the waiter is the finding's own thread, not autograd's backward thread")
    if mark.op is not None:
        ops = sorted({f.get("operation") for f in group})
        if ops != [mark.op]:
            problems.append(f"operation {ops}, expected {mark.op}")
    if mark.per_step is not None:
        want = mark.per_step
        ok = abs(per_step - want) <= TOLERANCE * want
        if not ok and mark.every:
            every_n = {f.get("every_n_steps") for f in group} - {None}
            if mark.every in every_n:
                ok = True
            elif steps and count:
                per_period = want * mark.every
                periods = count / per_period
                k = round(periods)
                if 1 <= k and steps // mark.every <= k <= math.ceil(steps / mark.every) \
                        and abs(periods - k) <= TOLERANCE * k:
                    ok = True
        if not ok:
            every_n = sorted({f.get("every_n_steps") for f in group} - {None})
            problems.append(f"per_step {per_step:.3f} (count {count}, {steps} steps"
                            + (f", every_n_steps {every_n}" if every_n else "")
                            + f"), expected {want:.3f} within {TOLERANCE:.0%}"
                            + (f" or every_n_steps {mark.every}" if mark.every else ""))
    if problems:
        return False, f"{where}: " + "; ".join(problems)
    return True, f"{where} {per_step:.2f}/step"


def judge(path, marks, report):
    """Returns (found, missed, unexpected, notes)."""
    groups = collections.defaultdict(list)  # (mark index, pid, phase_name) -> findings
    unexpected, notes = [], []
    real = os.path.realpath(path)
    for process in report["processes"]:
        for f in process["findings"]:
            user = f.get("user_frame") or {}
            here = os.path.realpath(user.get("file") or "") == real
            phase_name = f.get("phase_name")
            matched = False
            for i, mark in enumerate(marks):
                if not here or user.get("line") != mark.line or f["category"] != mark.category:
                    continue
                if mark.phase != "eval" and f["phase"] != "steady":
                    continue  # eval marks take any phase; check_group wants an eval phase_name
                groups[(i, process["pid"], phase_name)].append(f)
                matched = True
            if not matched and f["phase"] == "steady":
                where = f"{os.path.basename(user.get('file') or '?')}:{user.get('line')}"
                label = f"[{phase_name}]" if phase_name else ""
                unexpected.append(f"{f['category']}@{where}{label}({f['cause']},{f.get('per_step', 0):.2f}/step)")
    steps_of = {p["pid"]: steady_steps(p) for p in report["processes"]}
    found, missed = [], []
    for i, mark in enumerate(marks):
        results = [check_group(mark, g, steps_of.get(pid, 0)) for (j, pid, _), g in groups.items() if j == i]
        passed = [note for ok, note in results if ok]
        if passed:
            found.append(passed[0])
        else:
            missed.append(f"{mark.category}:{mark.line}")
            notes.extend(note for _, note in results)
            if not results:
                notes.append(f"{mark.category}:{mark.line}: no finding at that line"
                             + ("" if mark.phase == "eval" else " in steady state"))
    return found, missed, unexpected, notes


def record(bundle, out_dir, job):
    path, rel, env_extra, marks, errors = job
    slug = rel[:-3].replace("/", "-") + "".join("+" + re.sub(r"[^A-Za-z0-9]+", "_", v) for v in env_extra.values())
    json_path = os.path.join(out_dir, slug + ".json")
    trace_dir = os.path.join(out_dir, "traces", slug)
    if os.path.exists(json_path):
        os.remove(json_path)
    env = dict(os.environ, **env_extra)
    t0 = time.time()
    try:
        proc = subprocess.run([f"{bundle}/bin/syncscope", "run", "--force", "--no-report", "-o", trace_dir,
                               "--format", f"json={json_path}", "--fail-on", "hidden-sync", "--",
                               "python3", path, STEPS_ARG],
                              capture_output=True, text=True, cwd=os.path.dirname(path), env=env, timeout=400)
        rc, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, stderr = 124, f"timed out after {e.timeout}s\n{(e.stderr or b'')[-2000:]!r}"
    took = time.time() - t0

    has_hidden_sync = any(m.category == "hidden-sync" for m in marks)
    want_rc = GATE_EXIT if has_hidden_sync else (0 if not marks else None)
    notes = list(errors)
    found, missed, unexpected = [], [f"{m.category}:{m.line}" for m in marks], []
    if rc not in (0, GATE_EXIT) or not os.path.exists(json_path):
        notes.append(f"exit {rc}" + ("" if os.path.exists(json_path) else ", no JSON report written")
                     + "\n" + stderr[-2000:])
    else:
        found, missed, unexpected, more = judge(path, marks, json.load(open(json_path)))
        notes += more
        if want_rc is not None and rc != want_rc:
            notes.append(f"exit {rc} with --fail-on hidden-sync, expected {want_rc}")
    if not marks and unexpected:
        notes.append("a script without marks must have no steady-state finding")
    ok = not notes and not missed
    name = rel + "".join(f" [{k}={v}]" for k, v in env_extra.items())
    fmt = lambda s: ", ".join(s) or "-"
    row = (name, fmt(f"{m.category}:{m.line}" for m in marks), fmt(found), fmt(missed),
           "; ".join(unexpected[:3]) + (f" (+{len(unexpected) - 3})" if len(unexpected) > 3 else "") or "-",
           str(rc), "PASS" if ok else "FAIL", f"{took:.0f}s")
    return row, ok, notes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("out_dir")
    parser.add_argument("scripts", nargs="*", help="only these (file name, name without .py, or path under examples/pytorch)")
    parser.add_argument("--jobs", type=int, default=2, help="recordings at once (default 2)")
    args = parser.parse_intermixed_args()
    bundle, out_dir = os.path.abspath(args.bundle), os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)

    jobs = []
    for folder in FOLDERS:
        directory = os.path.join(EXAMPLES, folder)
        for script in sorted(os.listdir(directory)):
            if not script.endswith(".py") or script in SKIP or script.startswith("_"):
                continue
            rel = os.path.join(folder, script) if folder else script
            if args.scripts and not {script, script[:-3], rel, rel[:-3]} & set(args.scripts):
                continue
            path = os.path.join(directory, script)
            marks, env_runs, errors = parse_marks(path, realistic=bool(folder))
            for env_extra in [{}] + env_runs:
                jobs.append((path, rel, env_extra, marks, errors))

    t_all = time.time()
    results = [None] * len(jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(record, bundle, out_dir, job): i for i, job in enumerate(jobs)}
        for future in concurrent.futures.as_completed(futures):
            row, ok, notes = results[futures[future]] = future.result()
            print(f"--- {row[0]}: {row[6]} in {row[7]}", flush=True)
            for note in notes:
                print("    " + note.replace("\n", "\n    "), flush=True)

    rows = [r[0] for r in results]
    failures = sum(not r[1] for r in results)
    header = ("script", "expected", "found", "missed", "unexpected (steady)", "exit", "verdict", "time")
    width = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print(" | ".join(c.ljust(w) for c, w in zip(row, width)))
    print(f"{len(rows) - failures} passed, {failures} failed, {time.time() - t_all:.0f}s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
