"""Fixed: print every 1000 steps (never, in this short run) and at the end."""
from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
    if step % 1000 == 999:
        print("loss", loss)
print("final loss", loss)
