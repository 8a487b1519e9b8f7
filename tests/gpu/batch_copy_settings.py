"""examples/pytorch/pageable_batches.py's loop with how its batches are held
and copied as arguments, to time one change at a time (docs/what-if.md,
"Pinned off the training thread, and a side stream's operations"):

    batch_copy_settings.py STEPS [pin] [side]

pin: the host batches are pinned once, before the loop (what the pageable
copy's hint calls pinning off the training thread); side: each copy is made
on a side stream, ordered with wait_stream and record_stream, as
copies_on_compute_stream_fixed.py does. "STEPS" against "STEPS pin" times
the pinned-async fix alone: pageable_batches_fixed.py makes both changes,
and its twin's saving is the pinning's less the side stream's operations.
The settings are read once, at the start (the lockstep timer,
python/step_interleaver.py, runs two of these in one process).
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
    copy_stream = torch.cuda.Stream() if "side" in flags else None
    compute = torch.cuda.current_stream()
    for step in range(steps):
        if copy_stream is None:
            x = host_batches[step % 4].to("cuda", non_blocking=True)
        else:
            with torch.cuda.stream(copy_stream):
                x = host_batches[step % 4].to("cuda", non_blocking=True)
            compute.wait_stream(copy_stream)
            x.record_stream(compute)
        train_step(model, optimizer, x, y)
    torch.cuda.synchronize()
    print("batch_copy_settings: done")


if __name__ == "__main__":
    main()
