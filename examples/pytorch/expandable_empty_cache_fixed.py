"""expandable_segments:True without empty_cache() in the loop: segments stay
mapped after the first step, no driver memory calls in steady state."""
import os

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
import torch  # noqa: E402

from _common import STEPS, model_and_data, train_step  # noqa: E402

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    big = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    train_step(model, optimizer, x, y)
    del big
torch.cuda.synchronize()
print("expandable_empty_cache_fixed: done")
