#!/usr/bin/env python3
"""What a batch's copy to the GPU costs the host, by where its memory is
pinned (docs/what-if.md, "Pinning on the training thread"): pageable
.to(device, non_blocking=True); pin_memory() on this thread and then the
copy (what DataLoader(pin_memory=True) does with num_workers=0); memory
pinned before the loop; the same copied on a side stream (the Python work
behind whatif::kSideStreamOperations); pin_memory() alone. A 512 KB and a
2 KB batch and three small kernels an iteration; the ways take turns in
rounds of N iterations, and each prints its median µs an iteration.

    taskset -c CORE pinning_cost.py [N] [ROUNDS]
"""
import statistics, sys, time
import torch

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 15
dev = "cuda"
w = torch.randn(1024, 1024, device=dev)
xs = [torch.randn(256, 512) for _ in range(8)]
ys = [torch.randint(0, 10, (256,)) for _ in range(8)]
pxs = [x.pin_memory() for x in xs]
pys = [y.pin_memory() for y in ys]

def work(a):
    return (a @ w[:512, :512]).relu().sum()

def pageable(i):
    return xs[i % 8].to(dev, non_blocking=True), ys[i % 8].to(dev, non_blocking=True)

def pin_here(i):
    return xs[i % 8].pin_memory().to(dev, non_blocking=True), ys[i % 8].pin_memory().to(dev, non_blocking=True)

def prepinned(i):
    return pxs[i % 8].to(dev, non_blocking=True), pys[i % 8].to(dev, non_blocking=True)

side = torch.cuda.Stream()
compute = torch.cuda.current_stream()

def side_stream(i):
    with torch.cuda.stream(side):
        x = pxs[i % 8].to(dev, non_blocking=True)
    compute.wait_stream(side)
    x.record_stream(compute)
    return x, pys[i % 8].to(dev, non_blocking=True)

def copy_only_pin(i):  # the host memcpy alone, into pinned memory
    return xs[i % 8].pin_memory(), ys[i % 8].pin_memory()

ways = {"pageable": pageable, "pin_here": pin_here, "prepinned": prepinned, "prepinned_side_stream": side_stream, "pin_only(no copy)": copy_only_pin}
res = {k: [] for k in ways}
for r in range(ROUNDS + 2):
    for name, f in (list(ways.items()) if r % 2 == 0 else list(reversed(ways.items()))):
        torch.cuda.synchronize()
        t = time.perf_counter_ns()
        for i in range(N):
            x, y = f(i)
            if name != "pin_only(no copy)":
                work(x)
        torch.cuda.synchronize()
        if r >= 2:
            res[name].append((time.perf_counter_ns() - t) / N / 1000)
for k, v in res.items():
    print(f"{k:20} median {statistics.median(v):8.1f} µs/iter  spread {min(v):.1f}..{max(v):.1f}")
