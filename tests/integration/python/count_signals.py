"""Counts the SIGINTs it receives while it syncs for SECONDS, then prints
the count: a signal sent to the whole process group must arrive once.

    python3 count_signals.py SECONDS [READY_FILE]

READY_FILE is created once the handler is in place: a signal sent before
that (Python still starting, on a loaded machine) would end the program.
"""
import ctypes
import os
import signal
import socket
import sys
import time

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)
signal.signal(signal.SIGINT, lambda sig, frame: None)
# One byte per delivery at the C level: Python runs its handler once for
# deliveries that come close together, the wakeup fd sees each.
reader, writer = socket.socketpair()
reader.setblocking(False)
writer.setblocking(False)
signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
if len(sys.argv) > 2:
    open(sys.argv[2], "w").close()
received = 0
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    cuda.cudaDeviceSynchronize()
    time.sleep(0.001)
    try:
        received += len(reader.recv(64))
    except BlockingIOError:
        pass
time.sleep(0.2)
try:
    received += len(reader.recv(64))
except BlockingIOError:
    pass
print("SIGINT received %d time(s)" % received, flush=True)
