"""The in-process API (docs/python.md) on the fake runtime, run BY
tests/python/check_wheel.py with the installed wheel: prints CHECK lines."""
import syncscope

import fake_training

fake_training.step()  # set-up (allocations) outside the watched blocks


def check(name, ok, detail=""):
    print("%s %s %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)


with syncscope.watch() as w:
    for _ in range(20):
        fake_training.step()
syncs = [f for f in w.findings if f.category == "hidden-sync"]
check("watch finds the sync at its line", len(syncs) == 1 and syncs[0].line == 35 and
      syncs[0].file.endswith("fake_training.py"), [f.describe() for f in w.findings])
check("its count", bool(syncs) and syncs[0].count == 20, syncs and syncs[0].count)
check("import slots put back", w.slots_restored > 0 and w.slots_left == 0, (w.slots_restored, w.slots_left))

with syncscope.watch() as again:
    fake_training.step(read_back=False)
check("a second watch: a clean block is clean", not [f for f in again.findings if f.category == "hidden-sync"],
      [f.describe() for f in again.findings])

try:
    with syncscope.assert_no_syncs():
        for _ in range(3):
            fake_training.step()
    check("assert_no_syncs raises", False, "nothing raised")
except syncscope.SyncsFound as e:
    check("assert_no_syncs raises with the line and count", "fake_training.py:35" in str(e) and "3 calls" in str(e),
          str(e).replace("\n", " | "))


with syncscope.watch() as marked:
    for _ in range(12):
        fake_training.step()
        syncscope.step()
steps = [f for f in marked.findings if f.category == "hidden-sync"]
check("syncscope.step() makes the steps", len(steps) == 1 and abs(steps[0].per_step - 1.0) < 0.01 and
      marked.json["processes"][0]["phases"][0]["source"] == "optimizer-step",
      [(f.describe(), f.per_step) for f in steps])


@syncscope.assert_no_syncs()
def clean_step():
    fake_training.step(read_back=False)
    return 7


check("as a decorator, a clean function returns its value", clean_step() == 7)
