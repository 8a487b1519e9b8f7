# syncscope-env: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
"""empty_cache_backward.py fixed: the same model and loop without
torch.cuda.empty_cache(): the caching allocator keeps the blocks of the
previous step and serves the backward's gradients and temporaries from them.
Run twice like the original (default allocator, and expandable_segments:True,
where the segments stay mapped after the first steps). Expected: no
steady-state finding at all, in either mode.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import AsyncScalarLog, steps_from_argv

FEATURES, WIDTH, DEPTH, CLASSES, BATCH = 512, 2048, 4, 16, 256
LOG_EVERY, EVAL_BATCHES = 5, 4
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "empty_cache_backward_fixed.pt")


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
    print(f"empty_cache_backward_fixed: PYTORCH_CUDA_ALLOC_CONF={os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')}")

    for step in range(1, steps + 1):
        x, y = task.batch()
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss, reserved_mib=torch.cuda.memory_reserved() / 2**20)
    log.flush()

    print(f"empty_cache_backward_fixed: eval accuracy {evaluate(model, task).item():.3f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
