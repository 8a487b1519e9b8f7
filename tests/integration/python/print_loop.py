"""A host-bound loop that prints a value every step through the stand-in
formatter of this folder (torch/_tensor_str.py: three read-backs with
Python work and queued memsets between them, as print(tensor) of a CUDA
tensor makes); the fixed variant prints once, after the loop. Issue 27's
every-n-steps what-if on the fake runtime (tests/integration/what_if_test.cpp).

    python3 print_loop.py STEPS broken|fixed

Prints step_us=MEAN: the mean step from a fifth to 90% of the run. With
PRINT_LOOP_LINE_WATCH=1 on a Python without sys.monitoring (before 3.12),
fake_monitoring.py stands in for it, so that syncscope's line watch
(sitecustomize.py) records the loop's lines as it does on 3.12+.
"""
import ctypes
import os
import sys
import time

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)  # releases the GIL around each call, as PyTorch does

import torch._tensor_str  # noqa: E402  (the stand-ins of this folder)
import torch.optim  # noqa: E402
from twin_loop import busy, mean_step_us, stream_and_buffers  # noqa: E402

STEP_WORK_US = 600  # the step's own host work
FORMAT_WORK_US = 300  # the formatter's, between two of its read-backs



if os.environ.get("PRINT_LOOP_LINE_WATCH") == "1" and not hasattr(sys, "monitoring"):
    import fake_monitoring  # noqa: E402

    sys.monitoring = fake_monitoring.FakeMonitoring()


def main():
    steps, variant = int(sys.argv[1]), sys.argv[2]
    stream, device, host = stream_and_buffers(cuda)
    optimizer = torch.optim.Optimizer()
    starts = []
    for _ in range(steps):
        starts.append(time.perf_counter())
        busy(STEP_WORK_US)
        for _ in range(4):
            cuda.cudaMemsetAsync(device, 0, ctypes.c_size_t(64), stream)
        optimizer.step()
        if variant == "broken":
            torch._tensor_str.format_value(cuda, device, host, stream, FORMAT_WORK_US)  # the print: line 49
    text = torch._tensor_str.format_value(cuda, device, host, stream, FORMAT_WORK_US)
    cuda.cudaStreamSynchronize(stream)
    print(f"print_loop: {text} step_us={mean_step_us(starts):.1f}")


if __name__ == "__main__":
    main()
