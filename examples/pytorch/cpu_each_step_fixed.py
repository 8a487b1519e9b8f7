"""Fixed: accumulate on the GPU, one .cpu() after the loop."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
values = []
for step in range(STEPS):
    values.append(train_step(model, optimizer, x, y).detach())
print(f"cpu_each_step_fixed: {torch.stack(values).cpu().shape}")
