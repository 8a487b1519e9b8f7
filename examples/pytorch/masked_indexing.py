"""Boolean-mask indexing: the result's size depends on the data (nonzero)."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    out = model(x)
    positive = out[out > 0]  # expect: hidden-sync op=nonzero
    loss = positive.sum() + train_step(model, optimizer, x, y)
print(f"masked_indexing: done")
