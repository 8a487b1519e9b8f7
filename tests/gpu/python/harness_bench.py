"""One real training harness, timed in parts, for tests/gpu/harness_overhead.sh
(issue 25: syncscope's cost on the harnesses people train with).

    python harness_bench.py hf|lightning|dataloader|item [STEPS]

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


def step_ended():
    STEP_ENDS.append(time.perf_counter())


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
    name = sys.argv[1]
    run, default_steps = HARNESSES[name]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else default_steps
    t_imported = time.time()
    t_train0, t_train1 = run(steps)
    print(f"harness_bench: {name} t_start={t_start:.6f} t_imported={t_imported:.6f} t_train0={t_train0:.6f} "
          f"t_train1={t_train1:.6f} t_end={time.time():.6f} steps={steps} step_ms={steady_step_ms():.4f}", flush=True)


if __name__ == "__main__":
    main()
