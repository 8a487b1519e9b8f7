"""expandable_segments:True with empty_cache() every step: PyTorch's allocator
maps and unmaps physical memory through the driver's virtual-memory API
(cuMemCreate/cuMemMap ... cuMemUnmap/cuMemRelease), fetched with
cudaGetDriverEntryPointByVersion. The churn is the same as with cudaMalloc."""
import os

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
import torch  # noqa: E402  (the allocator reads its configuration at import)

from _common import STEPS, model_and_data, train_step  # noqa: E402

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    big = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")  # expect: allocator-churn
    train_step(model, optimizer, x, y)
    del big
    torch.cuda.empty_cache()  # expect: allocator-churn
torch.cuda.synchronize()
print("expandable_empty_cache: done")
