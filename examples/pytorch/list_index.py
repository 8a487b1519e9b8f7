"""Indexing with a Python list (minGPT's top-k sampling, `v[:, [-1]]`): the
list becomes a tensor on the host and is copied to the device from pageable
memory every time, a blocking copy."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    out = model(x)
    last = out[:, [-1]]  # expect: hidden-sync op=list-index; pageable-copy op=list-index
    loss = last.sum() + train_step(model, optimizer, x, y)
print(f"list_index: done")
