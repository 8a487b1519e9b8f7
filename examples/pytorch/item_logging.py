"""Logging the loss with .item() every step: a read-back sync per step."""
from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
history = []
for step in range(STEPS):
    loss = train_step(model, optimizer, x, y)
    history.append(loss.item())  # expect: hidden-sync op=item
print(f"item_logging: last loss {history[-1]:.4f}")
