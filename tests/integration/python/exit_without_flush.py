"""Syncs N times, then leaves without running atexit handlers.

    python3 exit_without_flush.py N os_exit   # os._exit(0), as launchers,
        DataLoader workers and frameworks avoiding teardown hangs do: the
        recorder's _exit hook still writes the trace's end
    python3 exit_without_flush.py N syscall   # exit_group(2) straight from
        the kernel's table: nothing can flush, the trace lacks its end
"""
import ctypes
import os
import sys

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)

for _ in range(int(sys.argv[1])):
    cuda.cudaDeviceSynchronize()
if len(sys.argv) > 2 and sys.argv[2] == "syscall":
    SYS_exit_group = {"x86_64": 231, "aarch64": 94}[os.uname().machine]
    ctypes.CDLL(None, use_errno=True).syscall(SYS_exit_group, 0)
os._exit(0)
