# syncscope-env: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
"""torch.cuda.empty_cache() in the training loop, called between the forward
and the backward pass "to make room for the backward" (a common reaction to an
out-of-memory error).

Run twice by tests/gpu/check_findings.py: with PyTorch's default caching
allocator, and with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (the
`# syncscope-env:` line above).

Model: an MLP of 4 Linear(2048, 2048) + GELU layers and a classifier head,
batch 256 of synthetic features made on the GPU; AdamW. Logging every
LOG_EVERY=5 steps goes through AsyncScalarLog (no sync); evaluation after
training accumulates on the GPU and reads once; the checkpoint is saved once.

One training step = one optimizer.step():
- `torch.cuda.empty_cache()` hands every cached block that is free at that
  moment back to the driver: the segments that held last step's gradients
  (freed by zero_grad(set_to_none=True)) and backward temporaries. Default
  allocator: a burst of cudaFree calls; expandable segments: cuMemUnmap /
  cuMemRelease of the free pages -> allocator-churn at that line.
- `loss.backward()` then needs that memory again for the gradients (16 MiB per
  weight) and temporaries: cudaMalloc (default) or cuMemCreate / cuMemMap /
  cuMemSetAccess (expandable segments) on autograd's backward thread, which
  has no Python frames, while the main thread waits in loss.backward() ->
  allocator-churn attributed to that line, via=backward.
- `optimizer.step()`: AdamW's foreach temporaries (16 MiB per weight) no
  longer fit in what the backward left cached either: cudaMalloc / cuMem*
  on the main thread -> allocator-churn at that line.
How many calls each makes per step depends on the allocator's block sizes and
rounding (and the mode), not on this program: the marks say per_step=any. Seen
on an H100 with PyTorch 2.11 and the default allocator: 7 cudaFree in
empty_cache(), 3 cudaMalloc in the backward, 4 in optimizer.step(), every step
from the third on; the fixed twin makes none after step 2.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import AsyncScalarLog, steps_from_argv

FEATURES, WIDTH, DEPTH, CLASSES, BATCH = 512, 2048, 4, 16, 256
LOG_EVERY, EVAL_BATCHES = 5, 4
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "empty_cache_backward.pt")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(FEATURES, WIDTH)
        self.hidden = nn.ModuleList([nn.Linear(WIDTH, WIDTH) for _ in range(DEPTH)])
        self.out = nn.Linear(WIDTH, CLASSES)

    def forward(self, x):
        x = F.gelu(self.inp(x))
        for layer in self.hidden:
            x = F.gelu(layer(x))
        return self.out(x)


class SyntheticTask:
    """Features on the GPU; the label is the argmax of a fixed random projection."""

    def __init__(self, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.projection = torch.randn(FEATURES, CLASSES, device="cuda", generator=g)

    def batch(self):
        x = torch.randn(BATCH, FEATURES, device="cuda")
        return x, (x @ self.projection).argmax(dim=1)


@torch.no_grad()
def evaluate(model, task):
    model.eval()
    correct = torch.zeros((), device="cuda")
    for _ in range(EVAL_BATCHES):
        x, y = task.batch()
        correct += (model(x).argmax(dim=1) == y).sum()
    model.train()
    return correct / (EVAL_BATCHES * BATCH)


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    task = SyntheticTask(seed=1)
    model = MLP().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    log = AsyncScalarLog()
    print(f"empty_cache_backward: PYTORCH_CUDA_ALLOC_CONF={os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')}")

    for step in range(1, steps + 1):
        x, y = task.batch()
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        torch.cuda.empty_cache()  # expect: allocator-churn per_step=any
        loss.backward()  # expect: allocator-churn via=backward per_step=any
        optimizer.step()  # expect: allocator-churn per_step=any
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss, reserved_mib=torch.cuda.memory_reserved() / 2**20)
    log.flush()

    print(f"empty_cache_backward: eval accuracy {evaluate(model, task).item():.3f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
