"""A stand-in for a PyTorch training step, on the fake CUDA runtime of
tests/fakecuda, for the Python API and pytest plugin tests: it calls the
runtime through ctypes and the process-wide symbol lookup, as a compiled
extension does, looking each function up at the call (so calls made after
the recorder arrived reach its hooks).

    step(read_back=True)   4 launches-worth of work, then (read_back) a
                           4-byte device-to-host copy and a stream sync: the
                           .item() pattern, at the line marked below.
"""
import ctypes

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
_D2H = 2
_buffers = {}


def _cuda(name):
    return ctypes.PyDLL(None)[name]


def _setup():
    if not _buffers:
        device, host, stream = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        _cuda("cudaMalloc")(ctypes.byref(device), ctypes.c_size_t(4))
        _cuda("cudaMallocHost")(ctypes.byref(host), ctypes.c_size_t(4))
        _cuda("cudaStreamCreate")(ctypes.byref(stream))
        _buffers.update(device=device, host=host, stream=stream)
    return _buffers


def read_loss():
    b = _setup()
    _cuda("cudaMemcpyAsync")(b["host"], b["device"], ctypes.c_size_t(4), _D2H, b["stream"])
    _cuda("cudaStreamSynchronize")(b["stream"])  # the .item(): line 35
    return ctypes.cast(b["host"], ctypes.POINTER(ctypes.c_float))[0]


def step(read_back=True):
    b = _setup()
    _cuda("cudaMemsetAsync")(b["device"], 0, ctypes.c_size_t(4), b["stream"])
    if read_back:
        return read_loss()
    return None
