"""A host-bound loop under fp16's GradScaler (the stand-in of this folder,
torch/amp/grad_scaler.py: seven launching operations and a read of found_inf
a step) and its bf16 twin, which needs no scaler. Issue 27's drop-read-back
test with a setting that drops more than the read
(tests/integration/what_if_test.cpp).

    python3 scaler_loop.py STEPS fp16|bf16

Each of the step's operations is OPERATION_US of Python work and a kernel,
the scaler's alike, so that one operation's cost is the program's median
dispatch and launch call. Prints step_us=MEAN over the middle of the run.
"""
import ctypes
import sys
import time

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)  # releases the GIL around each call, as PyTorch does

import torch.amp  # noqa: E402  (the stand-ins of this folder)
import torch.optim  # noqa: E402
from twin_loop import busy, mean_step_us, stream_and_buffers  # noqa: E402

OPERATION_US = 40
MODEL_OPERATIONS = 12  # forward, backward and the optimizer's



def main():
    steps, precision = int(sys.argv[1]), sys.argv[2]
    stream, device, host = stream_and_buffers(cuda)
    optimizer = torch.optim.Optimizer()
    scaler = torch.amp.GradScaler(stream, device, host, OPERATION_US) if precision == "fp16" else None
    starts = []
    for _ in range(steps):
        starts.append(time.perf_counter())
        loss = None
        for _ in range(MODEL_OPERATIONS):
            busy(OPERATION_US)
            cuda.cudaMemsetAsync(device, 0, ctypes.c_size_t(64), stream)
        if scaler is not None:
            scaler.scale(loss)
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
    cuda.cudaStreamSynchronize(stream)
    print(f"scaler_loop: step_us={mean_step_us(starts):.1f}")


if __name__ == "__main__":
    main()
