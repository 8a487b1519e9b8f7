"""What the fake-runtime twin loops of this folder share (print_loop.py,
scaler_loop.py): host work by the clock, a stream with a device and a pinned
host buffer, and the mean step they print."""
import ctypes
import time


def busy(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass


def stream_and_buffers(cuda):
    """A non-blocking stream, 64 device bytes and 64 pinned host bytes."""
    stream, device, host = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    cuda.cudaStreamCreateWithFlags(ctypes.byref(stream), 1)
    cuda.cudaMalloc(ctypes.byref(device), ctypes.c_size_t(64))
    cuda.cudaMallocHost(ctypes.byref(host), ctypes.c_size_t(64))
    return stream, device, host


def mean_step_us(starts):
    """The mean step from a fifth of the run to 90% of it: warm-up and the end left out."""
    first, last = len(starts) // 5, int(len(starts) * 0.9)
    return (starts[last] - starts[first]) / (last - first) * 1e6
