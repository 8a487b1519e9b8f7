"""syncscope.watch() in a plain PyTorch process (no preload), for
tests/gpu/check_python.sh: a watch around 20 steps with .item(), then one
around 10 steps of the fixed twin. Prints one JSON object: the findings, the
import slots put back, and the process's threads (by name) before, during
and after the watches."""
import json
import os

import torch

import syncscope
import train_item


def thread_names():
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return sorted(names)


def recorder_mapped():
    with open("/proc/self/maps") as maps:
        return any(line.rstrip().endswith("/libsyncscope.so") for line in maps)


def findings(w):
    return [{"category": f.category, "file": f.file, "line": f.line, "count": f.count, "where": f.where}
            for f in w.findings]


state = train_item.model_and_data()
train_item.warm_up(state)
mapped_before = recorder_mapped()
before = thread_names()
history = []
with syncscope.watch() as w:
    during = thread_names()
    for _ in range(20):
        train_item.item_step(state, history)
after = thread_names()
total = torch.zeros((), device="cuda")
with syncscope.watch() as clean:
    for _ in range(10):
        total = train_item.fixed_step(state, total)
torch.cuda.synchronize()
after_second = thread_names()
print(json.dumps({
    "item_line": train_item.item_line(),
    "mapped_before": mapped_before,
    "findings": findings(w),
    "clean_findings": findings(clean),
    "slots_restored": w.slots_restored,
    "slots_left": w.slots_left,
    "second_slots_restored": clean.slots_restored,
    "threads_before": before,
    "threads_during": during,
    "threads_after": after,
    "threads_after_second": after_second,
}))
