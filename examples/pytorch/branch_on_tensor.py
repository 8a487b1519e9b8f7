"""Branching on a tensor: `if loss > x:` needs the value on the host."""
from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
spikes = 0
for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
    if loss > 10.0:  # expect: hidden-sync op=bool
        spikes += 1
print(f"branch_on_tensor: {spikes} spikes")
