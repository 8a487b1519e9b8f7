"""Two training stages, each its own function with its own loop: a short
warm-up (stage_one) and the main loop (stage_two), which starts after the
line watch's first looks (sitecustomize.py: the first few step markers,
then every LOOK_EVERY-th). The end-to-end test checks that stage_two's
lines are watched too (tests/integration/dump_test.cpp).

    python3 two_stage_loop.py WARMUP_STEPS MAIN_STEPS

With a Python before 3.12, fake_monitoring.py stands in for sys.monitoring
(as in print_loop.py).
"""
import ctypes
import sys

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)

import torch.optim  # noqa: E402  (the stand-ins of this folder)

if not hasattr(sys, "monitoring"):
    import fake_monitoring  # noqa: E402

    sys.monitoring = fake_monitoring.FakeMonitoring()


def stage_one(steps, optimizer, device, stream):
    for _ in range(steps):
        cuda.cudaMemsetAsync(device, 0, ctypes.c_size_t(64), stream)
        optimizer.step()


def stage_two(steps, optimizer, device, stream):
    for _ in range(steps):
        cuda.cudaMemsetAsync(device, 0, ctypes.c_size_t(64), stream)
        optimizer.step()


def main():
    warmup, steps = int(sys.argv[1]), int(sys.argv[2])
    stream, device = ctypes.c_void_p(), ctypes.c_void_p()
    cuda.cudaStreamCreateWithFlags(ctypes.byref(stream), 1)
    cuda.cudaMalloc(ctypes.byref(device), ctypes.c_size_t(64))
    optimizer = torch.optim.Optimizer()
    stage_one(warmup, optimizer, device, stream)
    stage_two(steps, optimizer, device, stream)
    cuda.cudaStreamSynchronize(stream)
    print("two_stage_loop: done")


if __name__ == "__main__":
    main()
