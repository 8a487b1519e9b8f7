"""A small transformer language-model training loop that times itself, for
overhead comparisons (with and without syncscope, with and without the GPU
timeline, against torch.profiler). Logs the loss every 10 steps.

    python3 timed_training.py [STEPS] [REPEATS]

Prints the median step time over REPEATS timed blocks of STEPS steps.
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
torch.manual_seed(0)
vocab, d_model, seq, batch = 8192, 512, 256, 16
embed = torch.nn.Embedding(vocab, d_model)
layer = torch.nn.TransformerEncoderLayer(d_model, 8, 4 * d_model, batch_first=True, norm_first=True)
encoder = torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
head = torch.nn.Linear(d_model, vocab)
model = torch.nn.Sequential(embed, encoder, head).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
mask = torch.nn.Transformer.generate_square_subsequent_mask(seq, device="cuda")
tokens = torch.randint(0, vocab, (batch, seq + 1), device="cuda")


def step(i):
    optimizer.zero_grad(set_to_none=True)
    h = model[0](tokens[:, :-1])
    h = model[1](h, mask=mask, is_causal=True)
    loss = torch.nn.functional.cross_entropy(model[2](h).flatten(0, 1), tokens[:, 1:].flatten())
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if i % 10 == 0:
        return loss.item()
    return None


for i in range(5):  # warm-up
    step(i)
torch.cuda.synchronize()
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    torch.cuda.synchronize()
    times.append((time.perf_counter() - t0) / steps)
# The mean over every repetition: a tool that samples (syncscope's GPU
# timeline records 1 s of every 10) slows some repetitions only, which a
# median would hide.
mean = sum(times) / len(times)
times.sort()
print(f"timed_training: {steps} steps x{repeats}, {mean * 1e3:.3f} ms/step (mean; median {times[len(times) // 2] * 1e3:.3f})")
