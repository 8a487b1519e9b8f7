"""The in-process API (docs/python.md) on the fake runtime, run BY
tests/python/check_wheel.py with the installed wheel: prints PASS/FAIL lines,
then `DONE <n>` with the number of checks.

    api_cases.py plain   a process with no recorder: watch() loads it late
    api_cases.py run     under plain `syncscope run` (recorded whole): each
                         watch reports its block's stretch of the run's trace
    api_cases.py dormant under `syncscope run --dormant`: the preloaded
                         recorder's sessions, its endpoint left for attach
"""
import os
import socket
import sys

import syncscope

import fake_training

mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
checks = 0


def check(name, ok, detail=""):
    global checks
    checks += 1
    print("%s %s %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)


def syncs(w):
    return [f for f in w.findings if f.category == "hidden-sync"]


def counts(w):
    """The counts of its hidden-sync findings, one per line that syncs and
    phase (the same line reached from two lines of the caller is one)."""
    return [f.count for f in syncs(w)]


def total(w):
    """All its hidden-sync calls at fake_training.py:35, whatever the caller."""
    return sum(f.count for f in syncs(w) if f.line == 35 and f.file.endswith("fake_training.py"))


def thread_names():
    """This process's threads, by name (/proc/self/task/*/comm)."""
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                names.append(f.read().strip())
        except OSError:
            pass  # ended meanwhile
    return sorted(names)


def endpoint_answers():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0syncscope.%d" % os.getpid())
        return True
    except OSError:
        return False
    finally:
        s.close()


def recorder_loaded():
    with open("/proc/self/maps") as maps:
        return any(line.rstrip().endswith("/libsyncscope.so") for line in maps)


if mode == "plain":
    check("no recorder before the first watch", not recorder_loaded())
fake_training.step()  # set-up (allocations) outside the watched blocks
threads_before = thread_names()
if mode == "run":
    for _ in range(3):
        fake_training.step()  # recorded by the run, outside every watch

with syncscope.watch() as w:
    threads_during = thread_names()
    for _ in range(20):
        fake_training.step()
check("watch finds the sync at its line", len(syncs(w)) == 1 and syncs(w)[0].line == 35 and
      syncs(w)[0].file.endswith("fake_training.py"), [f.describe() for f in w.findings])
check("its count: the block's calls only", counts(w) == [20], counts(w))
threads_after = thread_names()
if mode == "plain":
    check("import slots put back", w.slots_restored > 0 and w.slots_left == 0, (w.slots_restored, w.slots_left))
    check("the recorder's collector thread ran during the watch", "syncscope" in threads_during, threads_during)
    check("after the watch no thread of the recorder is left: the threads are those before it",
          threads_after == threads_before, (threads_before, threads_after))
    check("the control endpoint is closed", not endpoint_answers())
elif mode == "dormant":
    check("preloaded: no import slot was changed", w.slots_restored == 0 and w.slots_left == 0,
          (w.slots_restored, w.slots_left))
    check("the collector thread ran during the watch and is gone after: the threads are those before it",
          "syncscope" in threads_during and threads_after == threads_before, (threads_during, threads_after))
    check("the dormant endpoint stays for syncscope attach", endpoint_answers())
else:
    check("under syncscope run no import slot was changed", w.slots_restored == 0 and w.slots_left == 0,
          (w.slots_restored, w.slots_left))
    check("the window is the block's, on the trace clock", w.window[0] < w.window[1], w.window)

with syncscope.watch() as again:
    fake_training.step(read_back=False)
check("a second watch: a clean block is clean", not syncs(again), [f.describe() for f in again.findings])

# Consecutive watches each see their own block only.
with syncscope.watch() as first:
    for _ in range(5):
        fake_training.step()
for _ in range(2):
    fake_training.step()  # between the two: in neither
with syncscope.watch() as second:
    for _ in range(7):
        fake_training.step()
check("consecutive watches: each its own block", counts(first) == [5] and counts(second) == [7],
      (counts(first), counts(second)))

# Nested: the inner block's findings, and the outer's whole block.
with syncscope.watch() as outer:
    for _ in range(3):
        fake_training.step()
    with syncscope.watch() as inner:
        for _ in range(2):
            fake_training.step()
    for _ in range(4):
        fake_training.step()
check("nested: the inner watch sees its block", counts(inner) == [2], counts(inner))
check("nested: the outer watch sees all of its block, the inner's included: 3 + 2 + 4 calls from three lines "
      "of this file, one line that syncs (a finding per phase, not per caller)",
      total(outer) == 9 and len(counts(outer)) < 3, counts(outer))
if mode == "plain":
    check("nested: the outer watch puts the slots back, the inner leaves them",
          outer.slots_restored > 0 and inner.slots_restored == 0, (outer.slots_restored, inner.slots_restored))
if mode != "run":
    check("nested: no thread of the recorder is left after", thread_names() == threads_before, thread_names())

# Three deep, and a clean inner block.
with syncscope.watch() as a:
    fake_training.step()
    with syncscope.watch() as b:
        with syncscope.watch() as c:
            fake_training.step(read_back=False)
        fake_training.step()
check("three deep: each level its own block", (total(a), total(b), total(c)) == (2, 1, 0),
      (counts(a), counts(b), counts(c)))

try:
    with syncscope.assert_no_syncs():
        for _ in range(3):
            fake_training.step()
    check("assert_no_syncs raises", False, "nothing raised")
except syncscope.SyncsFound as e:
    # Judged as the gate judges a run: the first of the 3 steps is warm-up,
    # the 2 after it the steady state.
    check("assert_no_syncs raises with the line, its steady-state count and rate",
          "fake_training.py:35" in str(e) and "2 calls (1 per step)" in str(e) and "steady state (2 steps" in str(e),
          str(e).replace("\n", " | "))
    check("...and each line once", str(e).count("fake_training.py:35") == 1, str(e).replace("\n", " | "))

try:
    with syncscope.assert_no_syncs(include_warmup=True):
        fake_training.read_loss()
        for _ in range(5):
            fake_training.step(read_back=False)
    check("assert_no_syncs(include_warmup=True) counts the set-up", False, "nothing raised")
except syncscope.SyncsFound as e:
    check("assert_no_syncs(include_warmup=True) counts the set-up",
          "fake_training.py:35" in str(e) and "every phase counted" in str(e), str(e).replace("\n", " | "))

with syncscope.watch() as around:
    try:
        with syncscope.assert_no_syncs():
            fake_training.step()
        check("assert_no_syncs inside a watch raises", False, "nothing raised")
    except syncscope.SyncsFound as e:
        check("assert_no_syncs inside a watch raises for its block", "1 call" in str(e), str(e).replace("\n", " | "))
    fake_training.step()
check("...and the watch around it counts both", total(around) == 2, counts(around))

with syncscope.watch() as marked:
    for _ in range(12):
        fake_training.step()
        syncscope.step()
steps = syncs(marked)
phases = marked.json["processes"][0]["phases"] if marked.json.get("processes") else []
check("syncscope.step() makes the steps", len(steps) == 1 and abs(steps[0].per_step - 1.0) < 0.01 and
      bool(phases) and phases[0]["source"] == "optimizer-step", [(f.describe(), f.per_step) for f in steps])


@syncscope.assert_no_syncs()
def clean_step():
    fake_training.step(read_back=False)
    return 7


check("as a decorator, a clean function returns its value", clean_step() == 7)
if mode != "run":
    check("at the end, the threads are those before the first watch", thread_names() == threads_before,
          (threads_before, thread_names()))
# A finding of a library's loop names the library's line and the user's line
# that reached it (the fields of docs/findings-schema.md, as the report writes them).
library = syncscope.Finding({
    "category": "hidden-sync", "api_sequence": "cudaMemcpyAsync(D2H)+cudaStreamSynchronize", "count": 3,
    "sync_frame": {"file": "/venv/lib/python3.12/site-packages/transformers/trainer.py", "line": 1847,
                   "function": "Trainer._run_epoch", "source": "torch.isnan(tr_loss_step)", "library": "transformers"},
    "user_frame": {"file": "train.py", "line": 20, "function": "<module>", "source": "trainer.train()"}})
check("a library's finding: its line, its library, the user's line that reached it",
      library.line == 1847 and library.library == "transformers" and library.reached_from == "train.py:20" and
      "(reached from train.py:20)" in library.describe(), library.describe())
print("DONE %d" % checks, flush=True)
