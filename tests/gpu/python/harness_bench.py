"""One real training harness, timed in parts, for tests/gpu/harness_overhead.sh
(issue 25: syncscope's cost on the harnesses people train with).

    python harness_bench.py hf|lightning|dataloader|item [STEPS] [--toggle N]

- hf: Hugging Face Trainer, the project's 4-layer GPT-2 program
  (examples/pytorch/libraries/_hf_setup.py): its default settings, logging
  every 10 steps, evaluation every 50.
- lightning: a Lightning MLP (examples/pytorch/libraries/lightning_mlp.py's
  module), DataLoader without pinned memory, loss on the progress bar.
- dataloader: a plain loop over a DataLoader with 4 worker processes and
  pinned memory, non-blocking copies, AdamW, a `.item()` every 20 steps.
- item: no harness, the recorder's cost per reported event: a matmul and a
  `float()` of one element each step (one stack captured per step).

Prints one line, `harness_bench: NAME t_start=... t_imported=... t_train0=...
t_train1=... t_end=... steps=N step_ms=M`: wall-clock times (time.time()) so
the caller can split its own measured wall time into launch and interpreter
start, imports, training and exit, and the median time between step ends
after the first 10 steps (the steady state, robust to a stray hiccup).

--toggle N (under `syncscope run --dormant`): the recorder records every
other block of N steps, started and stopped from inside the process through
its control entry point (as `syncscope attach` and `syncscope.watch()` do).
Each block's steps are timed, the first 2 after a switch left out (a stop
flushes and joins the collector), and each recorded block is compared with
the mean of the dormant blocks on either side of it: one process, so the
differences between processes (core, clocks, memory placement; ±10% on the
GPU machines) fall out. The line then also has `on_ms`, `off_ms` (medians of
the block medians) and `ratio`, `ratio_q1`, `ratio_q3`, `pairs` (the paired
ratios' median and quartiles).
"""
import os
import sys
import time

t_start = time.time()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "pytorch", "libraries"))

import statistics  # noqa: E402
import tempfile  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader, Dataset, TensorDataset  # noqa: E402


STEP_ENDS = []  # time.perf_counter() at each training step's end
TOGGLE = None  # the Toggle of --toggle N, else None


class Toggle:
    """Records every other block of `every` steps (see --toggle)."""

    SETTLE = 2  # steps left out after a switch

    def __init__(self, every):
        import ctypes
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from syncscope import _control
        path = None
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) == 6 and os.path.basename(fields[5].strip()) == "libsyncscope.so":
                    path = fields[5].strip()
        if path is None:
            sys.exit("harness_bench: --toggle needs `syncscope run --dormant`")
        self.recorder = _control.InProcess(ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY))
        self.every = every
        self.recording = False
        self.blocks = []  # (recording, [step gaps]) per block
        self.gaps = []
        self.last = None
        self.since_switch = 0
        self.dir = tempfile.mkdtemp(prefix="harness-toggle-")

    def step_ended(self, now):
        if self.last is not None and self.since_switch > self.SETTLE:
            self.gaps.append(now - self.last)
        self.since_switch += 1
        if len(STEP_ENDS) % self.every == 0:
            self.blocks.append((self.recording, self.gaps))
            self.gaps = []
            if self.recording:
                self.recorder.request("stop")
            else:
                session_dir = os.path.join(self.dir, str(len(self.blocks)))
                os.makedirs(session_dir)
                # HARNESS_TOGGLE_TIMELINE=full (or BURST/PERIOD in ms): the blocks record the GPU timeline too.
                timeline = os.environ.get("HARNESS_TOGGLE_TIMELINE")
                extra = {"gpu_timeline": "1", "gpu_sampling": timeline} if timeline else {}
                self.recorder.request("start", dir=session_dir, **extra)
            self.recording = not self.recording
            self.since_switch = 0
            now = time.perf_counter()  # the switch is in no step's time
        self.last = now

    def summary(self):
        if self.recording:
            self.recorder.request("stop")
        medians = [(on, statistics.median(g)) for on, g in self.blocks[1:] if len(g) >= 3]  # block 0: warm-up
        ratios = []
        for i, (on, m) in enumerate(medians):
            if on and 0 < i < len(medians) - 1 and not medians[i - 1][0] and not medians[i + 1][0]:
                ratios.append(m / ((medians[i - 1][1] + medians[i + 1][1]) / 2))
        if not ratios:
            return " pairs=0"
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        on_ms = 1000 * statistics.median(m for on, m in medians if on)
        off_ms = 1000 * statistics.median(m for on, m in medians if not on)
        return (f" on_ms={on_ms:.4f} off_ms={off_ms:.4f} ratio={statistics.median(ratios):.4f}"
                f" ratio_q1={q[0]:.4f} ratio_q3={q[2]:.4f} pairs={len(ratios)}")


def step_ended():
    now = time.perf_counter()
    STEP_ENDS.append(now)
    if TOGGLE is not None:
        TOGGLE.step_ended(now)


def steady_step_ms():
    gaps = [b - a for a, b in zip(STEP_ENDS[10:], STEP_ENDS[11:])]
    return 1000 * statistics.median(gaps) if gaps else float("nan")


def run_hf(steps):
    from _hf_setup import make_trainer
    from transformers import TrainerCallback

    class StepClock(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            step_ended()

    with tempfile.TemporaryDirectory() as out_dir:
        trainer = make_trainer(steps, out_dir)
        trainer.add_callback(StepClock())
        t0 = time.time()
        trainer.train()
        torch.cuda.synchronize()
        return t0, time.time()


def run_lightning(steps):
    import lightning as L
    from lightning_mlp import BATCH, CLASSES, FEATURES, MLP

    class StepClock(L.Callback):
        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
            step_ended()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(steps * BATCH, FEATURES), torch.randint(0, CLASSES, (steps * BATCH,)))
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    with tempfile.TemporaryDirectory() as root:
        trainer = L.Trainer(max_steps=steps, accelerator="gpu", devices=1, default_root_dir=root,
                            logger=False, enable_checkpointing=False, enable_model_summary=False,
                            enable_progress_bar=False, callbacks=[StepClock()])
        t0 = time.time()
        trainer.fit(MLP(), train_dataloaders=loader)
        torch.cuda.synchronize()
        return t0, time.time()


class Images(Dataset):
    """CPU-made images, as a decoding pipeline would hand them over."""

    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(index)
        return torch.randn(3, 64, 64, generator=g), int(torch.randint(0, 10, (1,), generator=g))


def run_dataloader(steps):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1, stride=2), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(Images(steps * 64), batch_size=64, num_workers=4, pin_memory=True,
                        persistent_workers=True, prefetch_factor=4)
    t0 = time.time()
    for step, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            loss.item()
        step_ended()
    torch.cuda.synchronize()
    return t0, time.time()


def run_item(steps):
    x = torch.randn(256, 256, device="cuda")
    torch.cuda.synchronize()
    t0 = time.time()
    for _ in range(steps):
        float((x @ x)[0, 0])  # a device-to-host copy and its sync, from Python
        step_ended()
    return t0, time.time()


HARNESSES = {"hf": (run_hf, 300), "lightning": (run_lightning, 1000), "dataloader": (run_dataloader, 400),
             "item": (run_item, 3000)}


def main():
    global TOGGLE
    args = sys.argv[1:]
    if "--toggle" in args:
        at = args.index("--toggle")
        TOGGLE = Toggle(int(args[at + 1]))
        del args[at:at + 2]
    name = args[0]
    run, default_steps = HARNESSES[name]
    steps = int(args[1]) if len(args) > 1 else default_steps
    t_imported = time.time()
    t_train0, t_train1 = run(steps)
    toggled = TOGGLE.summary() if TOGGLE is not None else ""
    print(f"harness_bench: {name} t_start={t_start:.6f} t_imported={t_imported:.6f} t_train0={t_train0:.6f} "
          f"t_train1={t_train1:.6f} t_end={time.time():.6f} steps={steps} step_ms={steady_step_ms():.4f}{toggled}",
          flush=True)


if __name__ == "__main__":
    main()
