"""Host-to-device copies from pageable memory, asked to be asynchronous.

`non_blocking=True` cannot help when the source is not pinned: the runtime
stages through its own pinned buffer and the host blocks for the copy.
"""
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
batch = torch.randn(1024, 1024)  # 4 MiB, pageable (no pin_memory())
acc = torch.zeros(1024, 1024, device="cuda")
for _ in range(steps):
    acc += batch.to("cuda", non_blocking=True)
torch.cuda.synchronize()
print(f"pageable_copy: {steps} copies of {batch.numel() * 4} bytes")
