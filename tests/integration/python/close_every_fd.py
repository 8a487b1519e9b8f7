"""Syncs N times, closes every descriptor above 2 (close_range, as daemons
and launchers do before exec), opens files of its own, points every
descriptor number up to 1023 at one of them, syncs N times more, and writes
known text into each. The recorder's descriptors were among those closed:
it must never write into the program's files.

    python3 close_every_fd.py DIR N
"""
import ctypes
import errno
import os
import sys
import time

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)
out, n = sys.argv[1], int(sys.argv[2])

for _ in range(n):
    cuda.cudaDeviceSynchronize()
time.sleep(0.5)  # the recorder flushes what it has
os.closerange(3, 65536)
files = [os.open(os.path.join(out, "own-%d.txt" % k), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for k in range(8)]
spare = os.open(os.path.join(out, "every-number.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
def point_at_spare(number):
    # EBUSY: another thread (the recorder's, reopening its trace) is between
    # allocating this number and installing its file; the kernel says retry.
    for _ in range(1000):
        try:
            os.dup2(spare, number)
            return
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
            time.sleep(0.001)


for number in range(3, 1024):
    if number not in files and number != spare:
        point_at_spare(number)
for _ in range(n):
    cuda.cudaDeviceSynchronize()
time.sleep(0.5)  # flushes again, with every number now the program's
for k, fd in enumerate(files):
    os.write(fd, b"file %d of the program\n" % k)
print("done", flush=True)
