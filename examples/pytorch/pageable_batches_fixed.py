"""Fixed: pinned host batches (what DataLoader(pin_memory=True) gives), copied
on a side stream so the copy also overlaps compute."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, _, y = model_and_data()
host_batches = [torch.randn(256, 512).pin_memory() for _ in range(4)]
copy_stream = torch.cuda.Stream()
compute = torch.cuda.current_stream()
for step in range(STEPS):
    with torch.cuda.stream(copy_stream):
        x = host_batches[step % 4].to("cuda", non_blocking=True)
    compute.wait_stream(copy_stream)
    x.record_stream(compute)
    train_step(model, optimizer, x, y)
torch.cuda.synchronize()
print("pageable_batches_fixed: done")
