"""Fixed: a fixed-size masked sum with torch.where, no data-dependent shape."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    out = model(x)
    positive = torch.where(out > 0, out, torch.zeros_like(out))
    loss = positive.sum() + train_step(model, optimizer, x, y)
print(f"masked_indexing_fixed: done")
