"""transformer_lm.py fixed: the same GPT, data, optimizer and schedule, with
the planted syncs removed the way a user would remove them.

- The training loss and the learning rate are logged every 5 steps through
  AsyncScalarLog (_train_utils.py): a non-blocking copy into pinned memory and
  a CUDA event, printed once the event has completed. No .item().
- evaluate() stacks the eval batches' losses on the GPU and returns the mean as
  a GPU tensor, logged the same way.
- The checkpoint is written once, after training, instead of every 20 steps
  inside the loop (torch.save of CUDA tensors syncs once per tensor).
Per training step: no sync, no pageable copy, no allocation. Expected: no
steady-state finding at all.
"""
import math
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import AsyncScalarLog, steps_from_argv

VOCAB, BLOCK, BATCH = 1000, 128, 16
N_LAYER, N_HEAD, N_EMBD = 6, 4, 128
LOG_EVERY, EVAL_EVERY, EVAL_BATCHES = 5, 10, 4
STATE_TENSORS = 77
CKPT_PATH = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "transformer_lm_fixed.pt")


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(N_EMBD, dim=2)
        q = q.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        k = k.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        v = v.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, N_EMBD)
        self.wpe = nn.Embedding(BLOCK, N_EMBD)
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(N_EMBD)
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.register_buffer("pos", torch.arange(BLOCK), persistent=False)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, idx, targets=None):
        T = idx.size(1)
        x = self.wte(idx) + self.wpe(self.pos[:T])
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, VOCAB), targets.reshape(-1))
        return logits, loss

    def configure_optimizer(self, weight_decay, lr):
        decay = [p for p in self.parameters() if p.dim() >= 2]
        no_decay = [p for p in self.parameters() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


class TokenStream:
    """A synthetic corpus on the GPU: each token is the previous one plus 1, 2
    or 3 (mod VOCAB), something a language model can learn."""

    def __init__(self, n_tokens, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.tokens = torch.randint(1, 4, (n_tokens,), device="cuda", generator=g).cumsum(0) % VOCAB
        self.window = torch.arange(BLOCK + 1, device="cuda")

    def batch(self):
        starts = torch.randint(len(self.tokens) - BLOCK - 1, (BATCH, 1), device="cuda")
        chunk = self.tokens[starts + self.window]
        return chunk[:, :-1], chunk[:, 1:]


@torch.no_grad()
def evaluate(model, stream):
    model.eval()
    losses = []
    for _ in range(EVAL_BATCHES):
        x, y = stream.batch()
        _, loss = model(x, y)
        losses.append(loss)
    model.train()
    return torch.stack(losses).mean()


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    train_data = TokenStream(200_000, seed=1)
    val_data = TokenStream(20_000, seed=2)
    model = GPT().cuda()
    storages = {t.untyped_storage().data_ptr() for t in model.state_dict().values()}
    assert len(storages) == STATE_TENSORS, f"{len(storages)} state-dict storages, docstring says {STATE_TENSORS}"
    optimizer = model.configure_optimizer(weight_decay=0.1, lr=1e-3)
    warmup = max(1, steps // 10)
    schedule = lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1.0 + math.cos(math.pi * min(s, steps) / steps))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    os.makedirs(os.path.dirname(CKPT_PATH), exist_ok=True)
    print(f"transformer_lm_fixed: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters, {steps} steps")

    log = AsyncScalarLog()
    log.log("step 0", val_loss=evaluate(model, val_data))
    t0 = time.time()
    for step in range(1, steps + 1):
        x, y = train_data.batch()
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        if step % LOG_EVERY == 0:
            ms = (time.time() - t0) / LOG_EVERY * 1e3
            t0 = time.time()
            log.log(f"step {step}", train_loss=loss, lr=scheduler.get_last_lr()[0], ms_per_step=ms)
        if step % EVAL_EVERY == 0:
            log.log(f"step {step}", val_loss=evaluate(model, val_data))
    log.flush()
    torch.save(model.state_dict(), CKPT_PATH)
    print(f"transformer_lm_fixed: done, checkpoint in {CKPT_PATH}")


if __name__ == "__main__":
    main()
