"""20,000 in-place adds on one CUDA tensor: 20,000 kernel launches, one sync.

The launches reach the runtime through __cudaLaunchKernel (CUDA 13); syncscope
must see every one of them and nothing else in the loop.
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1  # timed repetitions (overhead runs)
y = torch.zeros(1024, device="cuda")
torch.cuda.synchronize()
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    for _ in range(steps):
        y.add_(1)
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
# The mean over every repetition: a tool that samples (syncscope's GPU
# timeline records 1 s of every 10) slows some repetitions only, which a
# median would hide.
mean = sum(times) / len(times)
median = sorted(times)[len(times) // 2]
print(f"add_loop: {steps} launches x{repeats}, {mean / steps * 1e6:.2f} us/launch (mean; median "
      f"{median / steps * 1e6:.2f}), y[0]={y[0].item():.0f}")
