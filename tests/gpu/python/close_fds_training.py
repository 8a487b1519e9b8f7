"""Trains, closes every plain file it has open (as a daemon closing what it
does not know; the CUDA driver's devices, memfds and sockets stay, or CUDA
would break), opens files of its own, points every free number up to 1023
at one of them, trains on, writes known text into its files and checks them.
The recorder's descriptors were among those closed: the program's files
must hold exactly what it wrote.

    python3 close_fds_training.py DIR STEPS
"""
import errno
import os
import stat
import sys
import time

import torch

out, steps = sys.argv[1], int(sys.argv[2])
model = torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda")


def train(n):
    total = 0.0
    for _ in range(n):
        optimizer.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        optimizer.step()
        total += loss.item()  # expect: hidden-sync
    return total


train(steps)
time.sleep(0.5)
keep, closed = set(), []
for name in os.listdir("/proc/self/fd"):
    number = int(name)
    try:
        target = os.readlink("/proc/self/fd/" + name)
        mode = os.fstat(number).st_mode
    except OSError:
        continue
    if number < 3 or not stat.S_ISREG(mode) or target.startswith("/memfd:") or target.endswith("(deleted)"):
        keep.add(number)
    else:
        closed.append((number, target))
for number, _ in closed:
    os.close(number)
print("closed:", closed, flush=True)


def is_open(number):
    try:
        os.fstat(number)
        return True
    except OSError:
        return False


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
    if number not in files and number != spare and number not in keep and not is_open(number):
        point_at_spare(number)
train(steps)
time.sleep(0.5)
for k, fd in enumerate(files):
    os.write(fd, b"file %d of the program\n" % k)
for k, fd in enumerate(files):
    os.close(fd)
intact = all(open(os.path.join(out, "own-%d.txt" % k), "rb").read() == b"file %d of the program\n" % k for k in range(8))
spare_size = os.fstat(spare).st_size
print(f"close_fds_training: own files intact: {intact}; every-number.txt holds {spare_size} bytes", flush=True)
sys.exit(0 if intact and spare_size == 0 else 1)
