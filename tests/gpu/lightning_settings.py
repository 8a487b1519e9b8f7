"""libraries/lightning_mlp.py with its DataLoader and logging settings as
arguments, to time each change of its fixed twin alone (docs/what-if.md,
"Which of Lightning's two changes costs"):

    lightning_settings.py STEPS [pin] [workers] [epoch]

pin: DataLoader(pin_memory=True); workers: num_workers=1 with
persistent_workers, as the example loads since 2026-12-07 (without it,
num_workers=0: the settings replace the example's own); epoch:
self.log(..., on_step=False, on_epoch=True).
It runs the example itself (loaded with runpy, so each run has a module
of its own), its DataLoader given the settings and its LightningModule
logging with them. The settings are read once, at the start: the lockstep
timer (python/step_interleaver.py) runs two of these in one process, and
sys.argv is the last started program's.
"""
import os
import runpy
import sys

import torch.nn.functional as F

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "pytorch", "libraries",
                       "lightning_mlp.py")


def main():
    flags = set(sys.argv[2:])
    example = runpy.run_path(EXAMPLE, run_name="lightning_mlp")["main"].__globals__  # what main() reads
    make_loader, module = example["DataLoader"], example["MLP"]
    workers = "workers" in flags
    log_options = {"on_step": False, "on_epoch": True} if "epoch" in flags else {}

    def loader(*args, **kwargs):  # the example's own settings replaced
        kwargs.update(pin_memory="pin" in flags, num_workers=1 if workers else 0, persistent_workers=workers)
        return make_loader(*args, **kwargs)

    class MLP(module):
        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, prog_bar=True, **log_options)
            return loss

    example["DataLoader"], example["MLP"] = loader, MLP
    example["main"]()


if __name__ == "__main__":
    main()
