#!/usr/bin/env python3
"""GPU proof for issue 23 (library training loops): records each program of
examples/pytorch/libraries through
`syncscope run --fail-on hidden-sync --format json=FILE -- python3 PROG STEPS`
and checks it against the sites its header declares.

Header lines (anywhere in the program, one site per line):

    # planted: CATEGORY sync=PATH:FUNCTION op=OP [per_step=X|any] [every=N] [phase=eval] [user=FILE:TEXT] [seen=...]
    # remains: (same form)   in a fixed twin: a site that no setting removes, still expected
    # absent:  CATEGORY sync=PATH:FUNCTION [phase=eval] [max_per_step=X]
                             a site that must not be reported (or at most X per step)
    # fixes: NAME.py         this program is NAME.py fixed: NAME.py's planted sites must be
                             absent here, except those listed as `remains`
    # check-steps: N         the step count passed as argv[1] (default 200)
    # suppressions: FILE     run with --suppressions FILE (beside the program): the
                             sites no setting removes, each rule with its reason
    # gate-exit: N           the exit status expected (default: below)

- CATEGORY: hidden-sync, pageable-copy, allocator-churn, default-stream.
- sync=PATH:FUNCTION: the frame that syncs, i.e. the innermost Python frame
  outside torch's own package and the standard library: PATH is a suffix of
  its file (for a library, the path under site-packages, e.g.
  `transformers/trainer.py`; for the user's own code, the script's name),
  FUNCTION its function (a nested function by its own name). No line number:
  lines differ between library versions (the program's docstring says which
  version was checked).
- op: the finding's `operation`: item, bool, nonzero, copy-to-device-pinned,
  copy-to-device-pageable, copy-to-host, synchronize, free, allocator, unknown.
- per_step: per training step (or per eval step with phase=eval), within 10%;
  default 1, or 1/N with every=N. Findings that share category, syncing file
  and function, phase and operation are summed. every=N: periodic every N
  steps; a finding also passes with `every_n_steps` N, or a count that is k
  periods' worth for a k the run's steady steps allow (as check_findings.py).
- phase=eval: the finding's phase_name starts with "eval"; otherwise it must
  be the steady training phase.
- user=FILE:TEXT: the finding's `user_frame` is the script FILE and its source
  contains TEXT (no spaces in TEXT).

Checks per program:
- each planted/remains site is a steady finding: category, `sync_frame`
  (`{file, line, function, source, library}`) file and function, `operation`,
  per_step, user_frame as declared;
- each absent site (and, for a fixed twin, each planted site of its broken
  twin that it does not list as remains) has no steady finding;
- the exit status: 3 (gate failed) when the program's expected sites include
  a hidden-sync, else 0.
It prints one line per steady finding (category, syncing frame, user frame,
operation, per step, phase) and writes OUT/NAME.json (the report), OUT/NAME.log
(syncscope's stderr and the program's output), OUT/summary.txt and
OUT/summary.json.

Before the recordings it checks sites/known_sites.json against the packages
installed here: each entry's file exists under the package, its function
(a qualified name as Python's co_qualname: `Trainer._run_epoch`,
`outer.<locals>.inner`) is defined there, and its source text is on a line of
that function; OUT/known_sites.txt lists each entry with the version it was
checked against and the one installed (a different version is a note, a
missing file, function or line a failure). --known-sites-only does just that.

Until the recorder writes `sync_frame` and `operation`, a finding without
them is a failure, but the check still says what it can: the syncing frame is
then derived here from `site.python` (FALLBACK: the first frame whose file is
neither under torch's package nor the standard library) and the operation is
not checked. --allow-fallback accepts such derived frames (for a bundle that
predates the fields); the summary says so on every line it affects.

    tests/gpu/check_libraries.py BUNDLE OUT [--jobs N] [--allow-fallback] [--known-sites-only] [PROG...]

PROG picks programs by file name (`hf_trainer.py`) or name (`hf_trainer`).
"""
import argparse
import ast
import collections
import concurrent.futures
import importlib.metadata
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = os.path.join(ROOT, "examples", "pytorch", "libraries")
KNOWN_SITES = os.path.join(ROOT, "sites", "known_sites.json")
DEFAULT_STEPS = 200
TOLERANCE = 0.10
GATE_EXIT = 3
TIMEOUT_S = 480

CATEGORIES = {"hidden-sync", "pageable-copy", "allocator-churn", "default-stream"}
OPERATIONS = {"item", "bool", "nonzero", "copy-to-device-pinned", "copy-to-device-pageable",
              "copy-to-host", "synchronize", "free", "allocator", "unknown"}
HEADER = re.compile(r"^#\s*(planted|remains|absent|fixes|check-steps|suppressions|gate-exit):\s*(.*?)\s*$")
Site = collections.namedtuple("Site", "kind category path function op per_step every phase user_file user_text line "
                                      "max_per_step", defaults=(0.0,))


# ---------------------------------------------------------------- header

def parse_site(kind, text, number, errors):
    tokens = text.split()
    if not tokens or tokens[0] not in CATEGORIES:
        errors.append(f"line {number}: `{kind}:` must start with a category ({', '.join(sorted(CATEGORIES))})")
        return None
    options = {}
    for token in tokens[1:]:
        if "=" not in token:
            errors.append(f"line {number}: `{token}` is not KEY=VALUE")
            return None
        key, value = token.split("=", 1)
        options[key] = value
    allowed = {"sync", "phase", "max_per_step"} if kind == "absent" else \
        {"sync", "op", "per_step", "every", "phase", "user", "seen"}
    unknown = set(options) - allowed
    if unknown:
        errors.append(f"line {number}: unknown option(s) {sorted(unknown)}")
        return None
    sync = options.get("sync", "")
    if ":" not in sync:
        errors.append(f"line {number}: sync=PATH:FUNCTION is required")
        return None
    path, function = sync.rsplit(":", 1)
    op = options.get("op")
    if kind != "absent" and op not in OPERATIONS:
        errors.append(f"line {number}: op= must be one of {sorted(OPERATIONS)}")
        return None
    every = per_step = None
    try:
        max_per_step = float(options.get("max_per_step", 0))
        every = int(options["every"]) if "every" in options else None
        if options.get("per_step", "") != "any":
            per_step = float(options["per_step"]) if "per_step" in options else (1.0 / every if every else 1.0)
    except ValueError:
        errors.append(f"line {number}: bad every/per_step value")
        return None
    if every is not None and every < 2:
        errors.append(f"line {number}: every must be 2 or more")
        return None
    phase = options.get("phase")
    if phase not in (None, "eval"):
        errors.append(f"line {number}: phase= can only be eval")
        return None
    user_file = user_text = None
    if "user" in options:
        user_file, _, user_text = options["user"].partition(":")
    return Site(kind, tokens[0], path, function, op, per_step, every, phase, user_file, user_text or None, number,
                max_per_step)


def parse_header(path):
    """Returns {planted, remains, absent, fixes, steps, errors}."""
    info = {"planted": [], "remains": [], "absent": [], "fixes": None, "steps": DEFAULT_STEPS, "errors": [],
            "suppressions": None, "gate_exit": None}
    with open(path) as f:
        for number, text in enumerate(f.read().splitlines(), 1):
            m = HEADER.match(text.strip())
            if not m:
                continue
            kind, rest = m.groups()
            if kind == "fixes":
                info["fixes"] = rest
            elif kind == "suppressions":
                info["suppressions"] = os.path.join(os.path.dirname(os.path.abspath(path)), rest)
            elif kind == "gate-exit":
                try:
                    info["gate_exit"] = int(rest)
                except ValueError:
                    info["errors"].append(f"line {number}: gate-exit must be an integer")
            elif kind == "check-steps":
                try:
                    info["steps"] = int(rest)
                except ValueError:
                    info["errors"].append(f"line {number}: check-steps must be an integer")
            else:
                site = parse_site(kind, rest, number, info["errors"])
                if site:
                    info[kind].append(site)
    return info


# ---------------------------------------------------------------- frames

STDLIB = re.compile(r"/lib(?:64)?/python3(?:\.\d+)?/(?!.*(?:site|dist)-packages/)")
PACKAGES = re.compile(r"/(?:site|dist)-packages/([^/]+)")


def is_torch_or_stdlib(path):
    """FALLBACK rule: frames that are not the syncing frame."""
    if not path or path.startswith("<"):
        return True  # <frozen ...>, <string>
    m = PACKAGES.search(path)
    if m:
        return m.group(1) in ("torch", "functorch")
    if "/syncscope-python/" in path or "/torchinductor_" in path:
        return True  # syncscope's sitecustomize; Inductor's generated code
    return bool(STDLIB.search(path))


def library_of(path):
    m = PACKAGES.search(path or "")
    return m.group(1).removesuffix(".py") if m else None


def sync_frame_of(finding):
    """(frame, how): the finding's `sync_frame`, or the FALLBACK derived from its
    Python frames (`how` names which)."""
    frame = finding.get("sync_frame")
    if isinstance(frame, dict) and frame.get("file"):
        return frame, "sync_frame"
    if "sync_frame" in finding and frame is None and isinstance(finding.get("user_frame"), dict) \
            and finding["user_frame"].get("file"):
        # the field is there but null: the syncing frame is the user's own line
        return dict(finding["user_frame"], library=None), "sync_frame"
    frames = (finding.get("site") or {}).get("python") or []
    how = "FALLBACK site.python"
    if not frames and isinstance(finding.get("waiter"), dict):
        frames, how = finding["waiter"].get("python") or [], "FALLBACK waiter.python"
    for fr in frames:
        if not is_torch_or_stdlib(fr.get("file")):
            return dict(fr, library=library_of(fr.get("file")), source=None), how
    return None, how


def path_matches(file, suffix):
    file = (file or "").replace("\\", "/")
    return file == suffix or file.endswith("/" + suffix)


def function_matches(function, want):
    function = function or ""
    return function == want or function.endswith("." + want)


def short(path):
    m = PACKAGES.search(path or "")
    return path[m.start(1):] if m else os.path.basename(path or "?")


# ---------------------------------------------------------------- judging

def is_eval(finding):
    return (finding.get("phase_name") or "").startswith("eval")


def phase_steps(process, phase_name):
    for phase in process.get("phases") or []:
        if phase.get("name") == phase_name:
            return phase.get("steps") or 0
    steps = process.get("steps") or {}
    return (steps.get("count") or 0) if steps.get("detected", True) else 0


def steady_findings(report):
    """[(process, finding, frame, how)] of every steady-state finding."""
    out = []
    for process in report.get("processes") or []:
        for f in process.get("findings") or []:
            if f.get("phase") == "steady":
                frame, how = sync_frame_of(f)
                out.append((process, f, frame, how))
    return out


def site_findings(site, steady):
    """The steady findings at the site's category, syncing file and function and phase."""
    hits = []
    for process, f, frame, how in steady:
        if f.get("category") != site.category or not frame:
            continue
        if not path_matches(frame.get("file"), site.path) or not function_matches(frame.get("function"), site.function):
            continue
        if (site.phase == "eval") != is_eval(f):
            continue
        hits.append((process, f, frame, how))
    return hits


def per_step_ok(site, per_step, count, steps, every_n):
    if site.per_step is None:
        return True
    want = site.per_step
    if abs(per_step - want) <= TOLERANCE * want:
        return True
    if site.every:
        if site.every in every_n:
            return True
        if steps and count:
            periods = count / (want * site.every)
            k = round(periods)
            if 1 <= k and steps // site.every <= k <= math.ceil(steps / site.every) \
                    and abs(periods - k) <= TOLERANCE * k:
                return True
    return False


def check_present(site, steady, allow_fallback):
    """Returns (ok, note)."""
    where = f"{site.kind} {site.category} {site.path}:{site.function} op={site.op}" + \
        (f" [{site.phase}]" if site.phase else "")
    hits = site_findings(site, steady)
    if not hits:
        return False, f"{where}: no steady finding there"
    problems, notes = [], []
    hows = sorted({how for _, _, _, how in hits if how != "sync_frame"})
    if hows:
        notes.append("frame from " + "/".join(hows))
        if not allow_fallback:
            problems.append("findings carry no `sync_frame` (old bundle?); frame derived by the FALLBACK rule")
    want_library = site.path.split("/", 1)[0] if "/" in site.path else None
    libraries = {frame.get("library") for _, _, frame, how in hits if how == "sync_frame"}
    if libraries and libraries != {want_library}:
        problems.append(f"sync_frame library {sorted(map(str, libraries))}, expected {want_library}")
    ops = {f.get("operation") for _, f, _, _ in hits}
    if None in ops:
        notes.append("no `operation` field")
        if not allow_fallback:
            problems.append("findings carry no `operation` field: the cause cannot be checked")
        chosen = hits
    else:
        chosen = [h for h in hits if h[1].get("operation") == site.op]
        if not chosen:
            problems.append(f"operation {sorted(ops)}, expected {site.op}")
            chosen = hits
        elif len(ops) > 1:
            notes.append(f"other operations at the same frame: {sorted(ops - {site.op})}")
    # per process and phase: a program may have several (it has one here)
    by_phase = collections.defaultdict(list)
    for process, f, frame, how in chosen:
        by_phase[(process.get("pid"), f.get("phase_name"))].append((process, f, frame))
    best = None
    for (pid, phase_name), group in by_phase.items():
        per_step = sum(f.get("per_step") or 0 for _, f, _ in group)
        count = sum(f.get("count") or 0 for _, f, _ in group)
        every_n = {f.get("every_n_steps") for _, f, _ in group} - {None, 0, 1}
        steps = phase_steps(group[0][0], phase_name)
        ok = per_step_ok(site, per_step, count, steps, every_n)
        text = f"{per_step:.3f}/step (count {count}, {steps} steps" + \
            (f", every_n_steps {sorted(every_n)}" if every_n else "") + (f", phase {phase_name}" if phase_name else "") + ")"
        if best is None or ok:
            best = (ok, text, group)
        if ok:
            break
    ok_steps, text, group = best
    if not ok_steps:
        want = "any" if site.per_step is None else f"{site.per_step:.3f}"
        problems.append(f"{text}, expected {want} within {TOLERANCE:.0%}" + (f" or every {site.every} steps" if site.every else ""))
    if site.user_file:
        wrong = set()
        for _, f, _ in group:
            user = f.get("user_frame") or {}
            if os.path.basename(user.get("file") or "") != site.user_file or \
                    (site.user_text and site.user_text not in (user.get("source") or "")):
                wrong.add(f"{os.path.basename(user.get('file') or '?')}:{user.get('line')} {user.get('source') or ''}".strip())
        if wrong:
            problems.append(f"user_frame {sorted(wrong)}, expected {site.user_file} `{site.user_text or ''}`")
    note = f"{where}: {text}" + (f" ({'; '.join(notes)})" if notes else "")
    if problems:
        return False, note + " -- " + "; ".join(problems)
    return True, note


def check_absent(site, steady):
    hits = site_findings(site, steady)
    where = f"absent {site.category} {site.path}:{site.function}" + (f" [{site.phase}]" if site.phase else "")
    per_step = sum(f.get("per_step") or 0 for _, f, _, _ in hits)
    if hits and per_step > site.max_per_step:
        return False, f"{where}: still reported, {per_step:.3f}/step" + \
            (f" (at most {site.max_per_step} allowed)" if site.max_per_step else "")
    return True, f"{where}: " + (f"{per_step:.3f}/step, at most {site.max_per_step} allowed" if hits else "not reported")


def same_site(a, b):
    return (a.category, a.path, a.function, a.phase) == (b.category, b.path, b.function, b.phase)


def describe(process, f, frame, how):
    user = f.get("user_frame") or {}
    where = f"{short(frame.get('file'))}:{frame.get('line')} {frame.get('function')}" if frame else "(no frame outside torch)"
    lib = (frame or {}).get("library")
    src = (frame or {}).get("source")
    phase = f.get("phase_name") or f.get("phase")
    every = f.get("every_n_steps") or 0
    return (f"{f.get('category'):<15} {where}" + (f" [{lib}]" if lib else " [user]") + (f" `{src.strip()}`" if src else "")
            + f"  <- {os.path.basename(user.get('file') or '?')}:{user.get('line')} {(user.get('source') or '').strip()}"
            + f"  op={f.get('operation', 'n/a')}  {f.get('per_step') or 0:.3f}/step"
            + (f" every {every}" if every > 1 else "") + f"  count {f.get('count')}  [{phase}]"
            + ("" if how == "sync_frame" else f"  ({how})"))


# ---------------------------------------------------------------- known sites

def qualified_spans(tree):
    """[(co_qualname, first line, last line)] of every function in a module."""
    spans = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                spans.append((name, child.lineno, child.end_lineno))
                visit(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return spans


def installed_file(relative):
    """The installed path of `package/path.py`, or None."""
    package = relative.split("/", 1)[0]
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if not spec or not spec.submodule_search_locations:
        return None
    path = os.path.join(os.path.dirname(list(spec.submodule_search_locations)[0]), relative)
    return path if os.path.exists(path) else None


def installed_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def verify_known_sites(path, out_dir):
    """Checks each entry of the known-sites table against the installed packages.
    Returns the number of failures; writes OUT/known_sites.txt."""
    lines, failures = [], 0
    try:
        entries = json.load(open(path))
        if not isinstance(entries, list):
            raise ValueError("not a JSON array")
    except (OSError, ValueError) as e:
        entries, failures = [], 1
        lines.append(f"FAIL {path}: {e}")
    parsed = {}
    for entry in entries:
        if not isinstance(entry, dict):
            failures += 1
            lines.append(f"FAIL entry is not an object: {entry!r}"[:200])
            continue
        problems, notes = [], []
        ident = entry.get("id", "?")
        for key in ("id", "library", "file", "fix", "checked"):
            if not entry.get(key):
                problems.append(f"no `{key}`")
        unknown_ops = set(entry.get("operations") or []) - OPERATIONS
        if unknown_ops:
            problems.append(f"unknown operations {sorted(unknown_ops)}")
        checked = entry.get("checked") or {}
        for package, version in checked.items():
            installed = installed_version(package)
            if installed is None:
                notes.append(f"{package} not installed (checked {version})")
            elif installed.split("+")[0] != str(version):
                notes.append(f"{package} {installed} installed, checked {version}")
        relative = entry.get("file") or ""
        file = installed_file(relative) if relative else None
        if relative and not file:
            problems.append(f"{relative} not found in the installed packages")
        elif file:
            if file not in parsed:
                text = open(file, encoding="utf-8", errors="replace").read()
                parsed[file] = (text.splitlines(), qualified_spans(ast.parse(text)))
            text_lines, spans = parsed[file]
            ranges = [(1, len(text_lines))]
            function = entry.get("function")
            if function:
                ranges = [(a, b) for name, a, b in spans if name == function]
                if not ranges:
                    near = sorted({name for name, _, _ in spans if name.split(".")[-1] == function.split(".")[-1]})
                    problems.append(f"no function {function} in {relative}" + (f" (there: {', '.join(near)})" if near else ""))
            source = entry.get("source")
            if ranges and source:
                hits = [i for a, b in ranges for i in range(a, b + 1) if source in text_lines[i - 1]]
                if hits:
                    notes.append(f"line {', '.join(map(str, hits[:4]))}")
                else:
                    problems.append(f"no line with `{source}`" + (f" in {function}" if function else ""))
            elif ranges and function:
                notes.append(f"lines {ranges[0][0]}-{ranges[0][1]}")
        failures += bool(problems)
        where = relative + (f" {entry.get('function')}" if entry.get("function") else "")
        lines.append(f"{'FAIL' if problems else 'ok  '} {ident}: {where}"
                     + (f" -- {'; '.join(problems)}" if problems else "") + (f" ({'; '.join(notes)})" if notes else ""))
    lines.append(f"known sites: {len(entries)} entries, {failures} failed ({path})")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "known_sites.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    return failures


# ---------------------------------------------------------------- running

def record(bundle, out_dir, name, path, info, planted_of_twin, allow_fallback):
    slug = name[:-3]
    json_path = os.path.join(out_dir, slug + ".json")
    log_path = os.path.join(out_dir, slug + ".log")
    trace_dir = os.path.join(out_dir, "traces", slug)
    if os.path.exists(json_path):
        os.remove(json_path)
    t0 = time.time()
    command = [f"{bundle}/bin/syncscope", "run", "--force", "-o", trace_dir, "--format", f"json={json_path}",
               "--fail-on", "hidden-sync"]
    if info["suppressions"]:
        command += ["--suppressions", info["suppressions"]]
    command += ["--", "python3", path, str(info["steps"])]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, cwd=os.path.dirname(path), timeout=TIMEOUT_S)
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, stdout, stderr = 124, str(e.stdout or ""), f"timed out after {e.timeout}s\n{e.stderr or ''}"
    took = time.time() - t0
    with open(log_path, "w") as log:
        log.write(f"$ {' '.join(command)}\nexit {rc} after {took:.0f}s\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n")

    expected = info["planted"] + info["remains"]
    absent = list(info["absent"])
    for site in planted_of_twin:
        if not any(same_site(site, r) for r in info["remains"]):
            absent.append(site._replace(kind="absent", max_per_step=0.0))
    want_rc = GATE_EXIT if any(s.category == "hidden-sync" for s in expected) else 0
    if info["gate_exit"] is not None:
        want_rc = info["gate_exit"]
    failures, passes, lines = list(info["errors"]), [], []
    if not os.path.exists(json_path):
        failures.append(f"exit {rc}, no JSON report written (see {os.path.basename(log_path)}):\n{stderr[-1500:]}")
        return dict(name=name, ok=False, rc=rc, want_rc=want_rc, took=took, failures=failures, passes=passes,
                    findings=lines)
    report = json.load(open(json_path))
    steady = steady_findings(report)
    for process, f, frame, how in steady:
        lines.append(describe(process, f, frame, how))
    for site in expected:
        ok, note = check_present(site, steady, allow_fallback)
        (passes if ok else failures).append(note)
    for site in absent:
        ok, note = check_absent(site, steady)
        (passes if ok else failures).append(note)
    if rc != want_rc:
        failures.append(f"exit {rc} with --fail-on hidden-sync, expected {want_rc}")
    if not expected and not absent:
        failures.append("the program declares no site (no planted/remains/absent/fixes line)")
    return dict(name=name, ok=not failures, rc=rc, want_rc=want_rc, took=took, failures=failures, passes=passes,
                findings=lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("out_dir")
    parser.add_argument("programs", nargs="*", help="only these (file name or name without .py)")
    parser.add_argument("--jobs", type=int, default=1, help="recordings at once (default 1)")
    parser.add_argument("--allow-fallback", action="store_true",
                        help="accept findings without sync_frame/operation (frames derived from site.python)")
    parser.add_argument("--known-sites-only", action="store_true",
                        help="only check sites/known_sites.json against the installed packages")
    args = parser.parse_intermixed_args()
    bundle, out_dir = os.path.abspath(args.bundle), os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    known_failures = verify_known_sites(KNOWN_SITES, out_dir)
    if args.known_sites_only:
        sys.exit(1 if known_failures else 0)

    names = sorted(n for n in os.listdir(PROGRAMS) if n.endswith(".py") and not n.startswith("_"))
    if args.programs:
        unknown = [p for p in args.programs if p not in names and p + ".py" not in names]
        if unknown:
            sys.exit(f"no such program in {PROGRAMS}: {unknown}")
        names = [n for n in names if n in args.programs or n[:-3] in args.programs]
    jobs = []
    for name in names:
        path = os.path.join(PROGRAMS, name)
        info = parse_header(path)
        twin_planted = []
        if info["fixes"]:
            twin = os.path.join(PROGRAMS, info["fixes"])
            if os.path.exists(twin):
                twin_planted = parse_header(twin)["planted"]
            else:
                info["errors"].append(f"fixes: {info['fixes']} does not exist")
        jobs.append((name, path, info, twin_planted))

    t_all = time.time()
    results = [None] * len(jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(record, bundle, out_dir, *job, args.allow_fallback): i for i, job in enumerate(jobs)}
        for future in concurrent.futures.as_completed(futures):
            r = results[futures[future]] = future.result()
            print(f"--- {r['name']}: {'PASS' if r['ok'] else 'FAIL'} (exit {r['rc']}, expected {r['want_rc']}) "
                  f"in {r['took']:.0f}s", flush=True)

    text = []
    for r in results:
        text.append(f"=== {r['name']}: {'PASS' if r['ok'] else 'FAIL'}, exit {r['rc']} (expected {r['want_rc']}), "
                    f"{r['took']:.0f}s")
        text.append("  steady findings:" if r["findings"] else "  steady findings: none")
        text.extend("    " + line for line in r["findings"])
        text.extend("  ok   " + note for note in r["passes"])
        text.extend("  FAIL " + note.replace("\n", "\n       ") for note in r["failures"])
    failed = sum(not r["ok"] for r in results)
    if known_failures:
        text.append(f"sites/known_sites.json: {known_failures} entries do not match the installed packages "
                    "(OUT/known_sites.txt)")
    text.append(f"{len(results) - failed} passed, {failed} failed, {time.time() - t_all:.0f}s"
                + (" (--allow-fallback: sync_frame/operation not required)" if args.allow_fallback else ""))
    print("\n".join(text))
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"allow_fallback": args.allow_fallback, "known_sites_failures": known_failures,
                   "programs": results}, f, indent=1)
    sys.exit(1 if failed or known_failures else 0)


if __name__ == "__main__":
    main()
