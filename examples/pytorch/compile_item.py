"""torch.compile with .item() in the loop: the sync survives compilation."""
import torch

from _common import STEPS, model_and_data

model, optimizer, x, y = model_and_data()


@torch.compile
def compiled_loss(x, y):
    return torch.nn.functional.mse_loss(model(x), y)


for step in range(STEPS):
    optimizer.zero_grad(set_to_none=True)
    loss = compiled_loss(x, y)
    loss.backward()
    optimizer.step()
    value = loss.item()  # expect: hidden-sync
print(f"compile_item: last loss {value:.4f}")
