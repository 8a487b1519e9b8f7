#!/usr/bin/env python3
"""Does the host's work after a call that leaves Python run slower, and is
it the GPU's wait? (docs/what-if.md: branch_on_tensor's fixed twin saved
twice the replay's prediction, the lines after its read running slower.)
A host-bound loop (six 256-wide layers) takes turns every 20 steps among
things done after the optimizer step: nothing, .item(), synchronize, a
stream query (no wait), time.sleep(0) (a system call), a synchronize then
.item() on an idle GPU, a 20 µs busy loop in Python. Prints the median of
the next step's own work after each, against nothing, and the call's time.
Complements sync_aftereffect.py, which alternates a read with none.

    taskset -c CORE after_call_probe.py [STEPS]
"""
import statistics, sys, time
import torch

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
B = 20
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(6)]).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(256, 256, device="cuda")
kept = []

def spin(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass

variants = {
    "none": lambda loss: kept.append(loss.detach()),
    "item": lambda loss: kept.append(loss.item()),
    "synchronize": lambda loss: torch.cuda.synchronize(),
    "query": lambda loss: torch.cuda.current_stream().query(),
    "spin20us": lambda loss: spin(20),
    "sleep0": lambda loss: time.sleep(0),
    "item_on_idle": lambda loss: (torch.cuda.synchronize(), kept.append(loss.item())),
}
names = list(variants)
rest = {n: [] for n in names}
call = {n: [] for n in names}
loss = model(x).square().mean()
for step in range(STEPS):
    name = names[(step // B) % len(names)]
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    t1 = time.perf_counter()
    variants[name](loss)
    t2 = time.perf_counter()
    if step // B >= len(names) and step % B != 0:  # skip the first round and each block's first step
        rest[name].append((t1 - t0) * 1e6)
        call[name].append((t2 - t1) * 1e6)
    if len(kept) > 1000:
        kept.clear()
base = statistics.median(rest["none"])
for n in names:
    r = statistics.median(rest[n])
    print(f"{n:14} step's own work median {r:7.1f} µs ({r - base:+6.1f} vs none)  call {statistics.median(call[n]):7.1f} µs  n={len(rest[n])}")
