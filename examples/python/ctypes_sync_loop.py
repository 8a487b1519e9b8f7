"""A Python loop that calls the CUDA runtime directly through ctypes.

Without PyTorch, it shows syncscope's Python attribution: the device-to-host
read and the stream sync in read_metric() are reported at this file's lines.
Runs on a real GPU (libcudart.so.13 on the library path) and, in CI, on the
fake runtime of tests/fakecuda.

    python3 ctypes_sync_loop.py [steps] [--release-gil]

With --release-gil the calls go through ctypes.CDLL, which releases the GIL
around each foreign call as PyTorch does around its C++ work.
"""
import ctypes
import sys

# Load the runtime into the global namespace, then call it through the
# process-wide symbol lookup (CDLL(None)), which is where an LD_PRELOADed
# library interposes -- exactly like a compiled extension calling the runtime.
# PyDLL keeps the GIL held during the call, as many extensions do; CDLL
# releases it.
ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None) if "--release-gil" in sys.argv else ctypes.PyDLL(None)

D2H = 2


def check(code, what):
    if code != 0:
        raise SystemExit(f"{what} failed with CUDA error {code}")


def read_metric(device_value, host_value, stream):
    check(cuda.cudaMemcpyAsync(host_value, device_value, ctypes.c_size_t(4), D2H, stream), "copy")
    check(cuda.cudaStreamSynchronize(stream), "sync")  # the hidden sync: line 34
    return ctypes.cast(host_value, ctypes.POINTER(ctypes.c_float))[0]


def main():
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    steps = int(numbers[0]) if numbers else 100
    stream = ctypes.c_void_p()
    check(cuda.cudaStreamCreateWithFlags(ctypes.byref(stream), 1), "stream")
    device_value = ctypes.c_void_p()
    check(cuda.cudaMalloc(ctypes.byref(device_value), ctypes.c_size_t(4)), "malloc")
    host_value = ctypes.c_void_p()
    check(cuda.cudaMallocHost(ctypes.byref(host_value), ctypes.c_size_t(4)), "pinned")
    total = 0.0
    for _ in range(steps):
        total += read_metric(device_value, host_value, stream)
    print(f"ctypes_sync_loop: {steps} steps, total {total}")


if __name__ == "__main__":
    main()
