"""Run a Python script under torch.profiler (CPU and CUDA activities), for
the overhead comparison and the CUPTI-conflict check of issue 13.

    python3 with_torch_profiler.py SCRIPT [ARGS...]

Prints, after the script's own output, how many CUDA kernel events the
profiler saw ("torch.profiler: N kernel events"), so a run under syncscope
shows whether torch.profiler still got its records.
"""
import runpy
import sys

import torch
from torch.profiler import ProfilerActivity, profile

script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, __import__("os").path.dirname(script))
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    runpy.run_path(script, run_name="__main__")
kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
print(f"torch.profiler: {kernels} kernel events")
