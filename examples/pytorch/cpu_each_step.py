"""Moving a metric to the CPU every step with .cpu()."""
from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
values = []
for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
    values.append(loss.detach().cpu())  # expect: hidden-sync op=copy-to-host
print(f"cpu_each_step: {len(values)} values")
