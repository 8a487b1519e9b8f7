#!/usr/bin/env python3
"""The reports of fixed traces, byte for byte against tests/data/golden_reports/.

Issue 26 moves the analysis between folders; this proves that what a user
reads does not change. Each case reports one or more traces (the checked-in
samples, and traces bench/synthetic_trace writes the same every time: one
long enough to be read in windows of events, and the same trace read whole)
in every format, plus `dump --phases --stacks --events 20` as text and JSON.

Nothing in a golden may depend on the machine: the report runs with
SYNCSCOPE_REPORT_READS_RECORDED_FILES=0 (no ELF symbol tables or source lines
read from the paths a trace names: the samples name this project's files
and system libraries as they were on the recording machine), TZ=UTC, and the
folders the test works in are written as <work> and <source>.

    check_golden_reports.py SYNCSCOPE SYNTHETIC_TRACE SOURCE_DIR WORK_DIR
SYNCSCOPE_UPDATE_GOLDEN=1 rewrites the goldens instead of comparing.
"""
import difflib
import hashlib
import os
import shutil
import subprocess
import sys

FORMATS = ["text", "json", "sarif", "junit", "github", "perfetto", "html"]

# An output longer than this (the Perfetto trace of every call of a
# generated trace: megabytes) is kept as its SHA-256 and length, still
# compared byte for byte, so the goldens stay small (tests/hygiene).
MAX_GOLDEN_BYTES = 128 * 1024

# A case: its name, the trace files to make (None: a sample named by its
# path under the source tree), the report's extra arguments, its environment.
# SYNCSCOPE_WINDOW_EVENTS=100000 (the floor) reads the 220,000-event trace in
# three windows of events, the short last one held back and analysed with
# the one before; 10,000,000 reads the same trace whole.
CASES = [
    ("sample_v1", {"sample": "tests/data/traces/v1/accumulation_loop.sstrace"}, [], {}),
    ("sample_v2", {"sample": "tests/data/traces/v2/accumulation_loop.sstrace"}, [], {}),
    ("sample_v2_gate", {"sample": "tests/data/traces/v2/accumulation_loop.sstrace"},
     ["--fail-on", "all", "--include-warmup", "--details"], {}),
    ("sample_v2_saving", {"sample": "tests/data/traces/v2/accumulation_loop.sstrace"},
     ["--fail-on-saving", "3%", "--include-warmup"], {}),
    ("synthetic_aggregated", {"synthetic": ["30000"]}, ["--details"], {}),
    ("synthetic_long_whole", {"synthetic": ["220000", "--full"]}, [], {"SYNCSCOPE_WINDOW_EVENTS": "10000000"}),
    ("synthetic_long_windows", {"synthetic": ["220000", "--full"]}, [], {"SYNCSCOPE_WINDOW_EVENTS": "100000"}),
    ("synthetic_long_windows_gate", {"synthetic": ["220000", "--full"]},
     ["--fail-on", "hidden-sync", "--include-warmup"], {"SYNCSCOPE_WINDOW_EVENTS": "100000"}),
]


def normalised(text, work, source):
    return text.replace(work, "<work>").replace(source, "<source>")


def make_traces(case_dir, what, synthetic, source):
    """The path `report` is given: a sample file, or a directory of one synthetic trace."""
    if "sample" in what:
        return os.path.join(source, what["sample"])
    traces = os.path.join(case_dir, "traces")
    subprocess.run([synthetic, what["synthetic"][0], traces] + what["synthetic"][1:], check=True,
                   stdout=subprocess.DEVNULL)
    return traces


def run_case(name, what, args, env_extra, syncscope, synthetic, source, work):
    """{file name: output} for one case."""
    case_dir = os.path.join(work, name)
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    target = make_traces(case_dir, what, synthetic, source)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCSCOPE_") and k != "GITHUB_WORKSPACE"}
    env.update({"TZ": "UTC", "NO_COLOR": "1", "SYNCSCOPE_REPORT_READS_RECORDED_FILES": "0"})
    env.update(env_extra)
    command = [syncscope, "report", target] + args
    for f in FORMATS:
        command += ["--format", f"{f}={os.path.join(case_dir, 'report.' + f)}"]
    report = subprocess.run(command, env=env, capture_output=True, text=True, cwd=case_dir)
    out = {"exit_status": f"{report.returncode}\n"}
    for f in FORMATS:
        path = os.path.join(case_dir, "report." + f)
        with open(path, encoding="utf-8", errors="replace") as file:
            out["report." + f] = file.read()
    for file_name, extra in (("dump.json", ["--json"]), ("dump.txt", [])):
        dump = subprocess.run([syncscope, "dump", target, "--phases", "--stacks", "--events", "20"] + extra, env=env,
                              capture_output=True, text=True, cwd=case_dir)
        out[file_name] = dump.stdout + f"exit status {dump.returncode}\n"
    return {k: normalised(v, work, source) for k, v in out.items()}


def main():
    syncscope, synthetic, source, work = (os.path.abspath(a) for a in sys.argv[1:5])
    source = os.path.realpath(source)
    work = os.path.realpath(work)
    goldens = os.path.join(source, "tests", "data", "golden_reports")
    update = os.environ.get("SYNCSCOPE_UPDATE_GOLDEN") == "1"
    failures = []
    for name, what, args, env_extra in CASES:
        outputs = run_case(name, what, args, env_extra, syncscope, synthetic, source, work)
        for file_name, text in sorted(outputs.items()):
            if len(text.encode("utf-8")) > MAX_GOLDEN_BYTES:
                data = text.encode("utf-8")
                file_name += ".sha256"
                text = f"{hashlib.sha256(data).hexdigest()} {len(data)} bytes\n"
            golden = os.path.join(goldens, name, file_name)
            if update:
                os.makedirs(os.path.dirname(golden), exist_ok=True)
                with open(golden, "w", encoding="utf-8") as f:
                    f.write(text)
                continue
            try:
                with open(golden, encoding="utf-8") as f:
                    expected = f.read()
            except FileNotFoundError:
                failures.append(f"{name}/{file_name}: no golden (SYNCSCOPE_UPDATE_GOLDEN=1 writes it)")
                continue
            if text != expected:
                diff = difflib.unified_diff(expected.splitlines(), text.splitlines(), f"golden/{name}/{file_name}",
                                            f"now/{name}/{file_name}", lineterm="", n=2)
                failures.append(f"{name}/{file_name} differs:\n" + "\n".join(list(diff)[:60]))
    for failure in failures:
        print(failure)
    if update:
        print(f"golden reports written to {goldens}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
