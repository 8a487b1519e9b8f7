"""examples/pytorch/pageable_batches.py's loop with its batches pinned or
not, to time the pinned-async fix alone (docs/what-if.md, "Pinning with a
worker, and a side stream's operations timed"):

    batch_copy_settings.py STEPS [pin]

pin: the host batches are pinned once, before the loop (what the pageable
copy's hint calls pinning off the training thread), and copied on the
compute stream, as copies_on_compute_stream.py does. "STEPS" against
"STEPS pin" times pinning alone: pageable_batches_fixed.py also moves the
copy to a side stream, whose operations cost the host (its pair with
copies_on_compute_stream.py times them). The setting is read once, at the
start (the lockstep timer, python/step_interleaver.py, runs two of these
in one process).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "pytorch"))
from _common import model_and_data, train_step  # noqa: E402


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    flags = set(sys.argv[2:])
    model, optimizer, _, y = model_and_data()
    host_batches = [torch.randn(256, 512) for _ in range(4)]
    if "pin" in flags:
        host_batches = [b.pin_memory() for b in host_batches]
    for step in range(steps):
        x = host_batches[step % 4].to("cuda", non_blocking=True)
        train_step(model, optimizer, x, y)
    torch.cuda.synchronize()
    print("batch_copy_settings: done")


if __name__ == "__main__":
    main()
