"""Helpers shared by the realistic training programs in this folder: what a
project keeps in its utils module.

- steps_from_argv(): the number of training steps, from argv[1].
- AsyncScalarLog: logging of GPU scalars that never makes the host wait for
  the GPU (what the fixed twins use instead of .item() / print(tensor)).

The programs mark the lines syncscope must report with
`# expect: CATEGORY [every=N] [per_step=X|any] [phase=eval] [via=backward]`;
tests/gpu/check_findings.py reads those marks (see its docstring). A program
NAME_fixed.py is the same program with the planted problems fixed: it carries
no mark and must have no steady-state finding at all.
"""
import collections
import sys

import torch

DEFAULT_STEPS = 60  # as examples/pytorch/_common.py


def steps_from_argv(default=DEFAULT_STEPS):
    return int(sys.argv[1]) if len(sys.argv) > 1 else default


class AsyncScalarLog:
    """Prints GPU scalars without a host sync.

    log(prefix, name=value, ...) copies the tensor values with
    non_blocking=True into one slot of a pinned host buffer and records a CUDA
    event after the copy. The line is printed by a later log() or poll(), once
    Event.query() (a poll, never a wait) says that the copy has landed, so the
    numbers come out a step or two late but the GPU never drains. Plain Python
    numbers (step, learning rate) are printed as they are. flush() after
    training waits once and prints what is left.
    """

    def __init__(self, slots=16, width=8):
        self._host = torch.zeros(slots, width, pin_memory=True)
        self._events = [torch.cuda.Event() for _ in range(slots)]
        for event in self._events:  # create the CUDA events now, not inside the loop
            event.record()
        self._free = collections.deque(range(slots))
        self._pending = collections.deque()  # (slot, prefix, values, tensor names), oldest first
        self.dropped = 0

    def log(self, prefix, **values):
        self.poll()
        if not self._free:  # the GPU is `slots` records behind: skip rather than wait
            self.dropped += 1
            return
        slot = self._free.popleft()
        names = [k for k, v in values.items() if torch.is_tensor(v)]
        if names:
            stacked = torch.stack([values[k].detach().float().reshape(()) for k in names])
            self._host[slot, : len(names)].copy_(stacked, non_blocking=True)
        self._events[slot].record()
        self._pending.append((slot, prefix, values, names))

    def poll(self):
        while self._pending and self._events[self._pending[0][0]].query():
            slot, prefix, values, names = self._pending.popleft()
            landed = dict(zip(names, self._host[slot, : len(names)].tolist()))
            fields = []
            for key, value in values.items():
                value = landed.get(key, value)
                fields.append(f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}")
            print(f"{prefix}: " + ", ".join(fields), flush=True)
            self._free.append(slot)

    def flush(self):
        torch.cuda.synchronize()
        self.poll()
        if self.dropped:
            print(f"({self.dropped} log records dropped: the GPU was too far behind)")
