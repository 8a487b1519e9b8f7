"""tests/gpu/python/step_interleaver.py and check_whatif.py's block statistics,
without a GPU: a stand-in torch (optimizer-step hooks, a no-op
torch.cuda.synchronize) and two twins whose steps sleep, the broken one
400 µs longer. The lockstep timer must alternate their blocks, measure that
difference, go on alone when one program fails, and say so. Then
check_whatif.py's reading of a report: a twin's fixed sites summed with
their bounds, a stale site name refused, and the verdicts of a floor and a
ceiling."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INTERLEAVER = os.path.join(ROOT, "tests", "gpu", "python", "step_interleaver.py")
PINNED_PROGRAM = os.path.join(ROOT, "tests", "gpu", "python", "pinned_program.py")
TIMER = os.path.join(ROOT, "tests", "gpu", "python", "step_timer.py")
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import check_whatif  # noqa: E402
import twin_difference  # noqa: E402

STAND_IN = {
    "torch/__init__.py": "from . import cuda, optim  # noqa: F401\n",
    "torch/cuda.py": "def synchronize():\n    pass\n\n\ndef empty_cache():\n    pass\n",
    "torch/optim/__init__.py": "from . import optimizer  # noqa: F401\n",
    "torch/optim/optimizer.py": (
        "_hooks = []\n\n\ndef register_optimizer_step_post_hook(hook):\n    _hooks.append(hook)\n\n\n"
        "def step():\n    for hook in _hooks:\n        hook(None, (), {})\n"),
}
TWIN = """import sys
import time
from torch.optim.optimizer import step
if {fail}:
    raise RuntimeError("planted failure")
for _ in range(int(sys.argv[1])):
    time.sleep({seconds})
    step()
"""


# A twin that writes its own thread's cores and a forked child's, then steps.
AFFINITY_TWIN = """import json
import os
import sys
import threading
import time
import warnings
from torch.optim.optimizer import step


def helper():  # as DataLoader's pin-memory thread: started by the program's thread, working beside it
    deadline = time.monotonic() + 5
    while os.sched_getaffinity(0) == {int(os.environ["STEP_INTERLEAVER_CORE"])} and time.monotonic() < deadline:
        time.sleep(0.02)
    with open(sys.argv[2] + ".thread", "w") as f:
        json.dump(sorted(os.sched_getaffinity(0)), f)


started = threading.Thread(target=helper)
started.start()
warnings.simplefilter("ignore", DeprecationWarning)  # fork() in a process with threads
pid = os.fork()
if pid == 0:
    with open(sys.argv[2] + ".child", "w") as f:
        json.dump(sorted(os.sched_getaffinity(0)), f)
    os._exit(0)
os.waitpid(pid, 0)
started.join()
with open(sys.argv[2], "w") as f:
    json.dump(sorted(os.sched_getaffinity(0)), f)
for _ in range(int(sys.argv[1])):
    step()
"""


def write(folder, files):
    for name, text in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(text)


def interleave(folder, broken, fixed, steps, block=10):
    result = os.path.join(folder, "result.json")
    env = dict(os.environ, PYTHONPATH=folder)
    proc = subprocess.run([sys.executable, INTERLEAVER, result, str(block), f"{broken} {steps}", f"{fixed} {steps}"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr
    with open(result) as f:
        return json.load(f)


def main():
    with tempfile.TemporaryDirectory() as folder:
        write(folder, STAND_IN)
        write(folder, {"broken.py": TWIN.format(fail=False, seconds=0.0014),
                       "fixed.py": TWIN.format(fail=False, seconds=0.0010),
                       "failing.py": TWIN.format(fail=True, seconds=0.001)})
        measured = interleave(folder, os.path.join(folder, "broken.py"), os.path.join(folder, "fixed.py"), 400)
        blocks = measured["blocks"]
        assert not measured["errors"], measured["errors"]
        # Steps 80 to 360 are timed: 28 blocks of 10 each, taking turns.
        programs = [p for p, _ in blocks]
        assert programs == [0, 1] * 28, programs
        diffs = check_whatif.block_differences(blocks)
        assert len(diffs) == 14, diffs  # every other triple: no two share a block
        saving = statistics.median(diffs)
        assert 200 <= saving <= 700, f"planted 400 µs a step, measured {saving:.0f}"
        paired = check_whatif.paired_saving({"block_differences": [diffs] * 3})
        assert paired["blocks"] and paired["ci_us"][0] <= paired["mean_us"] <= paired["ci_us"][1], paired
        # The process is the unit: three processes whose blocks say 10, 20 and 30 µs give 20 µs ± t(2) * 10 / √3.
        paired = check_whatif.paired_saving({"block_differences": [[v - 1, v, v + 1] for v in (10, 20, 30)]})
        assert paired["rounds"] == 3 and abs(paired["ci_us"][1] - 20 - 4.30 * 10 / 3 ** 0.5) < 1e-9, paired
        # Under 3 block differences a process gives no median block: no interval (check_pair notes why).
        assert check_whatif.paired_saving({"block_differences": [[10, 20]] * 4}) is None

        # With the fixed twin first (every other process), the differences are still broken - fixed.
        check_whatif.INTERLEAVE_STEPS = 10
        os.environ["PYTHONPATH"] = folder
        broken_blocks, fixed_blocks, diffs, errors = check_whatif.time_interleaved(
            (os.path.join(folder, "broken.py"), ["400"]), (os.path.join(folder, "fixed.py"), ["400"]),
            os.path.join(folder, "swapped.json"), fixed_first=True)
        assert not errors and statistics.median(broken_blocks) > statistics.median(fixed_blocks), errors
        assert 200 <= statistics.median(diffs) <= 700, f"planted 400 µs a step, measured {statistics.median(diffs)}"

        # One twin fails at start: the other runs to its end alone, untimed past that, and the error is kept.
        measured = interleave(folder, os.path.join(folder, "failing.py"), os.path.join(folder, "fixed.py"), 200)
        # The error says where it was raised (the program's file and line) and after how many of its steps.
        assert any("planted failure at failing.py:" in e and e.endswith(", after 0 steps")
                   for e in measured["errors"]), measured["errors"]
        assert measured["blocks"] == [], measured["blocks"]
        assert sum("no block timed" in e for e in measured["errors"]) == 2, measured["errors"]
    check_pinning()
    # Its options' help is formatted by argparse, where a bare percent sign in a help text raises.
    proc = subprocess.run([sys.executable, check_whatif.__file__, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--no-pin-program-core" in proc.stdout, proc.stderr[-800:]
    check_report_reading()
    check_line_comparison()
    print("step_interleaver: lockstep blocks, the planted difference measured, a failing twin reported; "
          "the programs' threads pinned, their forked children not; "
          "check_whatif: fixed sites summed, a stale site refused, floor and ceiling verdicts; "
          "twin_difference: the stepping thread's lines compared")


def check_pinning():
    """STEP_INTERLEAVER_CORE (check_whatif.py --pin-program-core): both twins' threads in lockstep, a timed
    program's (step_timer.py) and a recorded program's main thread (pinned_program.py) run on that core; a
    thread they start and a child forked from them get the process's cores back."""
    allowed = sorted(os.sched_getaffinity(0))
    core = allowed[-1]
    with tempfile.TemporaryDirectory() as folder:
        write(folder, STAND_IN)
        write(folder, {"twin.py": AFFINITY_TWIN})
        twin = os.path.join(folder, "twin.py")
        env = dict(os.environ, PYTHONPATH=folder, STEP_INTERLEAVER_CORE=str(core))
        result = os.path.join(folder, "result.json")
        proc = subprocess.run([sys.executable, INTERLEAVER, result, "2", f"{twin} 6 {folder}/a",
                               f"{twin} 6 {folder}/b"], cwd=folder, env=env, capture_output=True, text=True, timeout=90)
        assert proc.returncode == 0, proc.stderr
        proc = subprocess.run([sys.executable, PINNED_PROGRAM, twin, "2", f"{folder}/main"], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=90)
        assert proc.returncode == 0, proc.stderr
        proc = subprocess.run([sys.executable, TIMER, result, "1", f"{twin} 6 {folder}/timed"], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=90)
        assert proc.returncode == 0, proc.stderr
        for name in ("a", "b", "main", "timed"):
            with open(os.path.join(folder, name)) as f:
                assert json.load(f) == [core], (name, "the program's thread is not on the one core")
            with open(os.path.join(folder, name + ".child")) as f:
                assert json.load(f) == allowed, (name, "a forked child kept the program's one core")
            with open(os.path.join(folder, name + ".thread")) as f:
                assert json.load(f) == allowed, (name, "a thread the program started kept the program's one core")


def finding(path, function, saving, floor=False, ceiling=False):
    return {"phase": "steady", "phase_name": "train", "category": "hidden-sync",
            "sync_frame": {"file": path, "function": function}, "predicted_fix": "x",
            "predicted_saving_us_per_step": saving, "predicted_saving_us_per_step_range": [saving, saving],
            "predicted_saving_is_floor": floor, "predicted_saving_is_ceiling": ceiling}


def check_report_reading():
    # The Trainer twin fixes two of its sites (PARTIAL_FIXES), named as the report names them.
    findings = [finding("/v/transformers/trainer.py", "Trainer._run_epoch", 22.7),
                finding("/v/accelerate/utils/operations.py", "send_to_device", 8.2, ceiling=True),
                finding("/v/transformers/masking_utils.py", "find_packed_sequence_indices", 20.5)]
    report = {"processes": [{"findings": findings, "phases": [{"name": "train", "steps": 100, "all_fixed": {
        "recorded_step_us": 1000, "replayed_step_us": 1000, "predicted_saving_us_per_step_range": [43.0, 43.0],
        "prediction_basis": "measured", "predicted_saving_is_floor": False}}]}]}
    read = check_whatif.prediction(report, "libraries/hf_trainer.py")
    assert abs(read["saving_low_us"] - 30.9) < 1e-9, read
    assert read["ceiling"] and not read["floor"], read
    # A site the list names that no finding matches would predict less in silence: refused.
    findings[0]["sync_frame"]["function"] = "_run_epoch"
    try:
        check_whatif.prediction(report, "libraries/hf_trainer.py")
        raise AssertionError("a stale fixed site was not refused")
    except ValueError as e:
        assert "trainer.py:Trainer._run_epoch" in str(e), e
    # A twin that fixes every sync and leaves its copies on the compute stream: the syncs' predictions summed.
    findings = [finding("/v/accelerate/utils/operations.py", "send_to_device", 8.0),
                finding("/v/accelerate/optimizer.py", "AcceleratedOptimizer.step", 5.0, floor=True),
                finding("/v/accelerate/utils/operations.py", "send_to_device", 3.0, ceiling=True)]
    findings[2]["category"] = "default-stream"
    report["processes"][0]["findings"] = findings
    read = check_whatif.prediction(report, "libraries/accelerate_loop.py")
    assert abs(read["saving_low_us"] - 13.0) < 1e-9 and read["floor"] and not read["ceiling"], read
    # One change alone (accelerate_settings.py): the batch copies' sync, not the default-stream finding at the
    # same site, nor the GradScaler's read the pair keeps.
    read = check_whatif.prediction(report, "accelerate_nonblocking")
    assert abs(read["saving_low_us"] - 8.0) < 1e-9 and not read["floor"] and not read["ceiling"], read
    read = check_whatif.prediction(report, "accelerate_bf16")
    assert abs(read["saving_low_us"] - 5.0) < 1e-9 and read["floor"], read
    # Outside the band and both spreads: a floor below the saving holds, so does a ceiling above it.
    assert check_whatif.verdict(False, True, False, floor_holds=True) == "FLOOR"
    assert check_whatif.verdict(False, True, False, ceiling_holds=True) == "CEILING"
    assert check_whatif.verdict(False, True, False) == "FAIL"
    assert check_whatif.verdict(False, True, True, ceiling_holds=True) == "UNRESOLVED"
    # Unpinned, a prediction carries over as its share of the recorded step; pinned, as its µs, the recorded
    # step's excess over the plain one being the recorder's own work (on an H200, item_logging.py: 37.4 µs of an
    # 830 µs recorded step, 43.4 µs measured on a 579 µs plain step).
    predicted = {"recorded_step_us": 830.0, "saving_low_us": 37.4, "saving_high_us": 37.4}
    saved_core = check_whatif.PIN_CORE
    try:
        check_whatif.PIN_CORE = ""
        assert abs(check_whatif.scaled(predicted, 579.0)[1] - 37.4 / 830 * 579) < 1e-9
        assert not check_whatif.judge(43.4, 579.0, predicted)[0], "by the share: 26.1 µs against 43.4"
        check_whatif.PIN_CORE = "2"
        assert check_whatif.scaled(predicted, 579.0) == (37.4, 37.4, 37.4)
        assert check_whatif.judge(43.4, 579.0, predicted)[0], "in µs: within 20% of 43.4"
    finally:
        check_whatif.PIN_CORE = saved_core


def check_line_comparison():
    # Ten steps of two lines on the stepping thread (tid 1): the broken twin's `log(x)` takes 30 µs more a
    # step; its other line, which both twins run, is 4 µs slower; autograd's thread (tid 2) has lines too.
    with tempfile.TemporaryDirectory() as folder:
        script = os.path.join(folder, "loop.py")
        write(folder, {"loop.py": "step(x)\nlog(x)\n"})

        def events(log_us, step_us):
            out, t = [], 0
            for _ in range(20):
                out.append({"api": "syncscope_optimizer_step", "tid": 1, "start_ns": t})
                for line, us in ((1, step_us), (2, log_us)):
                    out.append({"api": "syncscope_python_line", "tid": 1, "start_ns": t,
                                "python": {"file": script, "line": line, "function": "main"}})
                    out.append({"api": "syncscope_python_line", "tid": 2, "start_ns": t + 1,
                                "python": {"file": script, "line": 1, "function": "main"}})
                    t += us * 1000
            return out

        broken, fixed = twin_difference.line_times(events(40, 104)), twin_difference.line_times(events(10, 100))
    assert abs(broken["log(x)"] - 40) < 1e-9 and abs(fixed["step(x)"] - 100) < 1e-9, (broken, fixed)
    shown = twin_difference.line_text({"broken": broken, "fixed": fixed})
    assert "lines both twins run: +34 µs" in shown[0] and shown[1] == "+30 µs log(x)", shown
    assert len(shown) == 2, "a 4 µs difference is under LINE_SHOWN_US"
    # In lockstep another stepping thread (tid 3) runs its block inside this thread's `step(x)` of every
    # other step: those lines waited for their turn and are left out, not counted as the line's time.
    lockstep = events(40, 104)
    starts = [e for e in lockstep if "python" in e and e["tid"] == 1 and e["python"]["line"] == 1]
    for k, e in enumerate(starts):
        if k % 2:
            lockstep.append({"api": "syncscope_optimizer_step", "tid": 3, "start_ns": e["start_ns"] + 5})
            lockstep.append({"api": "syncscope_python_line", "tid": 3, "start_ns": e["start_ns"] + 5,
                             "python": {"file": script, "line": 2, "function": "main"}})
    interleaved = twin_difference.line_times(lockstep, tid=1)
    assert abs(interleaved["step(x)"] - 52) < 1e-9 and abs(interleaved["log(x)"] - 40) < 1e-9, interleaved


if __name__ == "__main__":
    main()
