"""torch.cuda.empty_cache() every step: memory freed, then allocated again."""
import torch

from _common import STEPS, model_and_data, train_step

model, optimizer, x, y = model_and_data()
for step in range(STEPS):
    big = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")  # expect: allocator-churn
    train_step(model, optimizer, x, y)
    del big
    torch.cuda.empty_cache()  # expect: allocator-churn op=allocator
torch.cuda.synchronize()
print("empty_cache: done")
