"""Fixed: bf16 autocast, whose range needs no loss scaling, so no
GradScaler: nothing is read back, and the scaler's operations are gone."""
import torch

from _common import STEPS, model_and_data

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
print(f"grad_scaler_fp16_fixed: last loss {loss.item():.4f}")
