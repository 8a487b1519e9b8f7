"""libraries/lightning_mlp.py with its DataLoader and logging settings as
arguments, to time each change of its fixed twin alone (docs/what-if.md,
"Which of Lightning's two changes costs"):

    lightning_settings.py STEPS [pin] [workers] [epoch]

pin: DataLoader(pin_memory=True); workers: num_workers=1 with
persistent_workers; epoch: self.log(..., on_step=False, on_epoch=True).
The settings are read once, at the start: the lockstep timer
(python/step_interleaver.py) runs two of these in one process, and
sys.argv is the last started program's.
"""
import sys
import tempfile

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

FEATURES, HIDDEN, CLASSES, BATCH = 512, 1024, 10, 256


class MLP(L.LightningModule):
    def __init__(self, log_options):
        super().__init__()
        self.log_options = log_options
        self.net = nn.Sequential(
            nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
            nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
            nn.Linear(HIDDEN, CLASSES),
        )

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True, **self.log_options)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    flags = set(sys.argv[2:])  # read once: the lockstep timer shares sys.argv between twins
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(steps * BATCH, FEATURES), torch.randint(0, CLASSES, (steps * BATCH,)))
    loader = DataLoader(data, batch_size=BATCH, shuffle=True, pin_memory="pin" in flags, num_workers=1 if "workers" in flags else 0, persistent_workers="workers" in flags)
    model = MLP({"on_step": False, "on_epoch": True} if "epoch" in flags else {})
    with tempfile.TemporaryDirectory() as root:
        trainer = L.Trainer(max_steps=steps, accelerator="gpu", devices=1, default_root_dir=root,
                            logger=False, enable_checkpointing=False, enable_model_summary=False)
        trainer.fit(model, train_dataloaders=loader)
    print("done")


if __name__ == "__main__":
    main()
