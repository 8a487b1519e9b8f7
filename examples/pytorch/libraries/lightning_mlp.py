"""PyTorch Lightning: an MLP LightningModule on random data, 300 steps.

The user's script is what a Lightning user writes: a LightningModule with
training_step / configure_optimizers, a DataLoader with one worker process,
`trainer.fit(...)`. The DataLoader is made without `pin_memory` (its
default), and the loss is logged to the progress bar every step, as
Lightning's examples do. No logger, no checkpoints, no validation.

Planted sites (the machine-readable lines below; format in
tests/gpu/check_libraries.py). Seen on an H200 with torch 2.11.0 and
lightning 2.6.6:
- lightning/fabric/utilities/apply_func.py, batch_to (the function inside
  move_data_to_device, line 104): Lightning moves each batch to the GPU with
  `.to(device, non_blocking=True)`, but the DataLoader's tensors are in
  pageable memory, so each copy is staged and the host waits: a pageable
  host-to-device copy for x and y, 2 per step.
- lightning/fabric/utilities/apply_func.py, to_item (the function inside
  convert_tensors_to_scalars, line 134): a metric logged with prog_bar=True
  and on_step=True (the default in training_step) is turned into a number
  with `.item()` each time the step's metrics are collected
  (_ResultCollection.metrics): once for the progress bar
  (ProgressBar.get_metrics) and once in _LoggerConnector.on_batch_end,
  2 per step; plus once every log_every_n_steps=50 in
  update_train_step_metrics (even without a logger).
Not planted: nothing else syncs; without pinned memory there is no
default-stream finding either (the copies block instead).
"""
# check-steps: 300
# planted: pageable-copy sync=lightning/fabric/utilities/apply_func.py:batch_to op=copy-to-device-pageable per_step=2 user=lightning_mlp.py:trainer.fit(
# planted: hidden-sync sync=lightning/fabric/utilities/apply_func.py:to_item op=item per_step=2 user=lightning_mlp.py:trainer.fit(
import sys
import tempfile

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

FEATURES, HIDDEN, CLASSES, BATCH = 512, 1024, 10, 256


class MLP(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
            nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
            nn.Linear(HIDDEN, CLASSES),
        )

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(steps * BATCH, FEATURES), torch.randint(0, CLASSES, (steps * BATCH,)))
    loader = DataLoader(data, batch_size=BATCH, shuffle=True, num_workers=1, persistent_workers=True)
    model = MLP()
    with tempfile.TemporaryDirectory() as root:
        trainer = L.Trainer(max_steps=steps, accelerator="gpu", devices=1, default_root_dir=root,
                            logger=False, enable_checkpointing=False, enable_model_summary=False)
        trainer.fit(model, train_dataloaders=loader)
    print("done")


if __name__ == "__main__":
    main()
