"""Stand-in for PyTorch's tensor formatter: print(t) of a CUDA tensor reads
it back several times (masked_select's count, comparisons, .item()), with
Python work and small kernels between the reads, and before the first and
after the last. For issue 27's
every-n-steps test (print_loop.py): the fix, printing less often, removes
all of it, not only the waits."""
import ctypes
import time

D2H = 2  # cudaMemcpyDeviceToHost


def _busy(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass


def _read_back(cuda, device, host, stream):
    cuda.cudaMemcpyAsync(host, device, ctypes.c_size_t(4), D2H, stream)
    cuda.cudaStreamSynchronize(stream)


def format_value(cuda, device, host, stream, work_us):
    _busy(work_us)  # before its first CUDA call: seen only with line events
    _read_back(cuda, device, host, stream)
    _busy(work_us)
    cuda.cudaMemsetAsync(device, 0, ctypes.c_size_t(64), stream)
    cuda.cudaMemsetAsync(device, 1, ctypes.c_size_t(64), stream)
    _read_back(cuda, device, host, stream)
    _busy(work_us)
    _read_back(cuda, device, host, stream)
    _busy(work_us)  # after its last
    return "tensor(...)"
