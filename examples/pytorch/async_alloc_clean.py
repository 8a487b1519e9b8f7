"""PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync on a clean loop: every
tensor is a cudaMallocAsync/cudaFreeAsync from the driver's memory pool,
stream-ordered and non-blocking. That is how this allocator works, not
churn: syncscope must report nothing in steady state."""
import os

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")
import torch  # noqa: E402

from _common import STEPS, model_and_data, train_step  # noqa: E402

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
torch.cuda.synchronize()
print(f"async_alloc_clean: last loss {loss.item():.4f}")
