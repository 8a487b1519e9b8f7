"""Trains, closes every descriptor above 2 but the CUDA driver's (/dev/nvidia*,
anonymous inodes), as daemons and launchers do, opens files of its own,
points every other number up to 1023 at one of them, trains on, writes
known text into its files and checks them.
The recorder's descriptors were among those closed: the program's files
must hold exactly what it wrote.

    python3 close_fds_training.py DIR STEPS
"""
import os
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
keep = set()
for name in os.listdir("/proc/self/fd"):
    try:
        target = os.readlink("/proc/self/fd/" + name)
    except OSError:
        continue
    if target.startswith("/dev/") or target.startswith("anon_inode:"):
        keep.add(int(name))
for number in range(3, 65536):
    if number not in keep:
        try:
            os.close(number)
        except OSError:
            pass
files = [os.open(os.path.join(out, "own-%d.txt" % k), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for k in range(8)]
spare = os.open(os.path.join(out, "every-number.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
for number in range(3, 1024):
    if number not in files and number != spare and number not in keep:
        os.dup2(spare, number)
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
