"""Batches from pageable host memory: non_blocking=True cannot help."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, _, y = model_and_data()
host_batches = [torch.randn(256, 512) for _ in range(4)]  # pageable
for step in range(STEPS):
    x = host_batches[step % 4].to("cuda", non_blocking=True)  # expect: pageable-copy op=copy-to-device-pageable
    train_step(model, optimizer, x, y)
torch.cuda.synchronize()
print("pageable_batches: done")
