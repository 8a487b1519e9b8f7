"""Calls libsyncscope.so's sys.monitoring line callback (the line watch's,
python/sitecustomize.py, Python 3.12+) more often than its budget, on any
Python: the callback must answer DISABLE from then on, and the trace hold
the budget's events, no more (tests/integration/what_if_test.cpp).

    python3 line_budget.py CALLS

Prints first_disabled=N: the first call answered with DISABLE (none: never).
"""
import ctypes
import sys

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)


def main():
    calls = int(sys.argv[1])
    cuda.cudaDeviceSynchronize()
    make = ctypes.PyDLL(None).syncscope_python_line_callback
    make.restype = ctypes.py_object
    make.argtypes = [ctypes.py_object]
    disable = object()  # stands for sys.monitoring.DISABLE
    callback = make(disable)
    code = sys._getframe().f_code
    first_disabled = None
    for i in range(calls):
        if callback(code, 20 + i % 2) is disable and first_disabled is None:
            first_disabled = i
    cuda.cudaDeviceSynchronize()
    print(f"first_disabled={first_disabled}")


if __name__ == "__main__":
    main()
