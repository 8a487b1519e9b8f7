"""Mixed precision in fp16 with torch's GradScaler: every scaler.step()
reads found_inf back with .item() to decide whether to skip the optimizer
step, and the scaler adds operations of its own to each step (the loss's
scaling, the gradients' unscaling and inf check, the scale's update). On
GPUs with bf16 none of it is needed: grad_scaler_fp16_fixed.py."""
import torch

from _common import STEPS, model_and_data

model, optimizer, x, y = model_and_data()
scaler = torch.amp.GradScaler("cuda")
for step in range(STEPS):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # expect: hidden-sync op=item
    scaler.update()
print(f"grad_scaler_fp16: last loss {loss.item():.4f}")
