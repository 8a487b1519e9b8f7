"""Fixed: no empty_cache(); the caching allocator reuses the block."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    big = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    train_step(model, optimizer, x, y)
    del big
torch.cuda.synchronize()
print("empty_cache_fixed: done")
