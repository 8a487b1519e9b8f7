"""Gradient accumulation against the fake runtime, with the stand-in torch.optim
of this folder: a varying number of micro-batches (two memsets each) per
optimizer step, a read-back once per optimizer step, and optionally a
"backward" on a C++ thread that Python does not know (the frameless worker
library), which syncs while the main thread waits with the GIL released.

    python3 accumulation_loop.py STEPS [libframeless_worker.so [many]]  ("many": 40 syncs in one GIL release)
"""
import ctypes
import random
import sys

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)  # releases the GIL around each call, as PyTorch does

import torch.optim  # noqa: E402  (the stand-in; syncscope's sitecustomize watches this import)


def micro_batch(device, stream):
    cuda.cudaMemsetAsync(device, 0, ctypes.c_size_t(64), stream)
    cuda.cudaMemsetAsync(device, 1, ctypes.c_size_t(64), stream)


def read_back(device, host, stream):
    cuda.cudaMemcpyAsync(host, device, ctypes.c_size_t(4), 2, stream)
    cuda.cudaStreamSynchronize(stream)  # the read-back: line 26


def main():
    steps = int(sys.argv[1])
    worker = ctypes.CDLL(sys.argv[2]) if len(sys.argv) > 2 else None
    many = sys.argv[3:] == ["many"]
    stream, device, host = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    cuda.cudaStreamCreateWithFlags(ctypes.byref(stream), 1)
    cuda.cudaMalloc(ctypes.byref(device), ctypes.c_size_t(64))
    cuda.cudaMallocHost(ctypes.byref(host), ctypes.c_size_t(64))
    optimizer = torch.optim.Optimizer()
    rng = random.Random(7)
    for _ in range(steps):
        for _ in range(rng.randint(2, 5)):
            micro_batch(device, stream)
        if worker is not None:
            worker.syncscope_test_backward(2)  # the waiting line: 43
        optimizer.step()  # line 44
        if many:
            worker.syncscope_test_many_syncs(40)  # line 46
        read_back(device, host, stream)
    print(f"accumulation_loop: {steps} optimizer steps")


if __name__ == "__main__":
    main()
