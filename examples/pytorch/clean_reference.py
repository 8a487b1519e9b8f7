"""The clean reference loop: pinned batches copied on a side stream ordered by
events, metrics kept on the GPU, no syncs, no allocations in steady state."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, _, y = model_and_data()
host_batches = [torch.randn(256, 512).pin_memory() for _ in range(4)]
copy_stream = torch.cuda.Stream()
compute = torch.cuda.current_stream()
loss_sum = torch.zeros((), device="cuda")
for step in range(STEPS):
    with torch.cuda.stream(copy_stream):
        x = host_batches[step % 4].to("cuda", non_blocking=True)
    compute.wait_stream(copy_stream)
    x.record_stream(compute)
    loss_sum += train_step(model, optimizer, x, y).detach()
print(f"clean_reference: mean loss {(loss_sum / STEPS).item():.4f}")
