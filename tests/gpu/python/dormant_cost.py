"""What `syncscope run --dormant` adds to a training step besides its CUDA
hooks (issue 25): the step markers' Python side, which the dormant process
keeps (python/sitecustomize.py registers them at `import torch`).

    syncscope run --dormant -- python dormant_cost.py [N]
    python dormant_cost.py [N]          (the same without the recorder)

Prints `dormant_cost: marker_ns=... optimizer_step_ns=... backward_ns=...`:
one marker call through ctypes.PyDLL (recording off: the recorder returns
at once), and a CPU optimizer step and a CPU backward with and without the
markers' hooks, so their difference is what a dormant process pays a step.
Medians of 7 repetitions of N calls each.
"""
import ctypes
import statistics
import sys
import time

import torch

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000


def per_call_ns(function):
    samples = []
    for _ in range(7):
        t0 = time.perf_counter_ns()
        for _ in range(N):
            function()
        samples.append((time.perf_counter_ns() - t0) / N)
    return statistics.median(samples)


def main():
    try:
        marker = ctypes.PyDLL(None).syncscope_optimizer_step
    except AttributeError:
        marker = None
    weight = torch.nn.Parameter(torch.zeros(4))
    weight.grad = torch.zeros(4)
    optimizer = torch.optim.SGD([weight], lr=0.0)
    x = torch.ones(4)

    def backward():
        (weight * x).sum().backward()

    fields = {"marker_ns": per_call_ns(marker) if marker is not None else float("nan"),
              "optimizer_step_ns": per_call_ns(optimizer.step), "backward_ns": per_call_ns(backward)}
    print("dormant_cost: " + " ".join(f"{k}={v:.1f}" for k, v in fields.items()), flush=True)


if __name__ == "__main__":
    main()
