"""Stand-in for a one-element CUDA tensor and the checks made on it
(torch.isnan, torch.isinf): reading it, as bool or with .item(), copies it
to the host and waits for the stream, as PyTorch's _local_scalar_dense
does. The frames here are PyTorch's own, so a finding names the caller's
line, as with the real torch."""
import ctypes

_cuda = None


def _runtime():
    global _cuda
    if _cuda is None:
        ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
        _cuda = ctypes.CDLL(None)
    return _cuda


class DeviceScalar:
    def __init__(self, stream, device, host):
        self.stream, self.device, self.host = stream, device, host

    def _read(self):
        cuda = _runtime()
        cuda.cudaMemcpyAsync(self.host, self.device, ctypes.c_size_t(4), 2, self.stream)  # device to host
        cuda.cudaStreamSynchronize(self.stream)
        return 0.0

    def __bool__(self):
        return self._read() != 0.0

    def item(self):
        return self._read()


def _check(scalar):
    # The check's kernel, then a new scalar on the device holding its result.
    _runtime().cudaMemsetAsync(scalar.device, 0, ctypes.c_size_t(4), scalar.stream)
    return DeviceScalar(scalar.stream, scalar.device, scalar.host)


def isnan(scalar):
    return _check(scalar)


def isinf(scalar):
    return _check(scalar)
