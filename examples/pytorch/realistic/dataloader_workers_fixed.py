"""dataloader_workers.py fixed: the same pipeline, model and loop; the mixup
coefficients are drawn in the Dataset (in the workers, one per sample), so
they travel with the batch: collated, pinned by the pin-memory thread and
copied on the prefetcher's side stream like the images. No pageable copy in
the loop. Expected: no steady-state finding at all.
"""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from _train_utils import AsyncScalarLog, steps_from_argv

NUM_CLASSES, BATCH, WORKERS, MIXUP_ALPHA = 10, 64, 2, 0.4
LOG_EVERY, EVAL_BATCHES = 5, 4
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "dataloader_workers_fixed.pt")


class SyntheticImages(Dataset):
    """Item i: a class template plus noise and a mixup coefficient, reproducible from (seed, i)."""

    def __init__(self, size, seed):
        self.size, self.seed = size, seed
        self.templates = torch.randn(NUM_CLASSES, 3, 32, 32, generator=torch.Generator().manual_seed(0))  # the classes

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        label = int(torch.randint(0, NUM_CLASSES, (1,), generator=g))
        image = self.templates[label] + 0.8 * torch.randn(3, 32, 32, generator=g)
        lam = np.random.default_rng([self.seed, index]).beta(MIXUP_ALPHA, MIXUP_ALPHA)
        return image, label, torch.tensor(lam, dtype=torch.float32)


class CUDAPrefetcher:
    """Copies the next batch to the GPU on a side stream while the current one trains."""

    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.preload()

    def preload(self):
        try:
            batch = next(self.loader)
        except StopIteration:
            self.next_batch = None
            return
        with torch.cuda.stream(self.stream):
            self.next_batch = [t.cuda(non_blocking=True) for t in batch]

    def __iter__(self):
        return self

    def __next__(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.next_batch
        if batch is None:
            raise StopIteration
        for t in batch:
            t.record_stream(torch.cuda.current_stream())
        self.preload()
        return batch


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(conv_bn(3, 32), nn.MaxPool2d(2), conv_bn(32, 64), nn.MaxPool2d(2), conv_bn(64, 128))
        self.fc = nn.Linear(128, NUM_CLASSES)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


def mixup_loss(model, images, labels, lam):
    """Elementwise mixup with the flipped batch (as timm's Mixup does)."""
    lam4 = lam.view(-1, 1, 1, 1)
    mixed = lam4 * images + (1.0 - lam4) * images.flip(0)
    logits = model(mixed)
    loss = lam * F.cross_entropy(logits, labels, reduction="none") \
        + (1.0 - lam) * F.cross_entropy(logits, labels.flip(0), reduction="none")
    return loss.mean()


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = torch.zeros((), device="cuda")
    seen = 0
    for i, (images, labels, _) in enumerate(CUDAPrefetcher(loader)):
        if i == EVAL_BATCHES:
            break
        correct += (model(images).argmax(dim=1) == labels).sum()
        seen += labels.size(0)
    model.train()
    return correct / max(seen, 1)


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    train_set = SyntheticImages(steps * BATCH, seed=1)
    train_loader = DataLoader(train_set, batch_size=BATCH, shuffle=True, num_workers=WORKERS,
                              pin_memory=True, persistent_workers=True, drop_last=True)
    model = SmallCNN().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    log = AsyncScalarLog()

    for step, (images, labels, lam) in enumerate(CUDAPrefetcher(train_loader), start=1):
        loss = mixup_loss(model, images, labels, lam)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss)
    log.flush()

    val_loader = DataLoader(SyntheticImages(EVAL_BATCHES * BATCH, seed=2), batch_size=BATCH, num_workers=WORKERS,
                            pin_memory=True)
    print(f"dataloader_workers_fixed: val accuracy {evaluate(model, val_loader).item():.3f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
