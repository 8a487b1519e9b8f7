"""Fixed: torch.compile, losses kept on the GPU."""
import torch

from _common import STEPS, model_and_data

model, optimizer, x, y = model_and_data()


@torch.compile
def compiled_loss(x, y):
    return torch.nn.functional.mse_loss(model(x), y)


losses = []
for step in range(STEPS):
    optimizer.zero_grad(set_to_none=True)
    loss = compiled_loss(x, y)
    loss.backward()
    optimizer.step()
    losses.append(loss.detach())
print(f"compile_item_fixed: last loss {torch.stack(losses)[-1].item():.4f}")
