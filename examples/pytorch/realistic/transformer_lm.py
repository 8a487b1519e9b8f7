"""A small GPT language model trained nanoGPT-style on a synthetic token stream.

Model: 6 identical pre-LayerNorm transformer blocks (causal self-attention
through scaled_dot_product_attention, GELU MLP), width 128, 4 heads,
vocabulary 1000, context 128, batch 16, untied output head. AdamW with
weight-decay groups, warm-up + cosine learning rate, gradient clipping.

One training step = one optimizer.step(): a batch of random windows of a token
stream that lives on the GPU, forward, backward, clip, step. Around it:
- every LOG_EVERY=5 steps the loss is printed with loss.item(): one read-back
  sync every 5 steps -> hidden-sync, per_step 1/5 (every=5).
- every EVAL_EVERY=10 steps (and once before training) evaluate() runs
  EVAL_BATCHES=4 batches under torch.no_grad() and reads each batch's loss with
  .item(): 4 read-back syncs every 10 steps -> hidden-sync, per_step 4/10 = 0.4
  (every=10). The evaluation runs inside the training loop, so it belongs to
  the training phase (long, "interrupted" steps), not to an eval phase.
- every CKPT_EVERY=20 steps torch.save(model.state_dict()) brings each CUDA
  tensor of the state dict to the host: storage.cpu() is a device-to-host copy
  followed by a stream sync, once per storage. The state dict holds
  STATE_TENSORS = 2 embeddings + 6 blocks x 12 + final LayerNorm 2 + head 1 = 77
  storages (checked at start-up) -> 77 syncs every 20 steps: hidden-sync,
  per_step 77/20 = 3.85 (every=20). The 77 copies land in pageable host
  memory (UntypedStorage.cpu()), so the same line is also a pageable-copy,
  per_step 3.85 (every=20).
Nothing else syncs, copies from pageable memory or allocates in steady state:
batches are cut on the GPU, and clip_grad_norm_ (error_if_nonfinite=False by
default) keeps the norm on the GPU.
"""
import math
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import steps_from_argv

VOCAB, BLOCK, BATCH = 1000, 128, 16
N_LAYER, N_HEAD, N_EMBD = 6, 4, 128
LOG_EVERY, EVAL_EVERY, EVAL_BATCHES, CKPT_EVERY = 5, 10, 4, 20
STATE_TENSORS = 77
CKPT_PATH = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "transformer_lm.pt")


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
    losses = torch.zeros(EVAL_BATCHES)
    for k in range(EVAL_BATCHES):
        x, y = stream.batch()
        _, loss = model(x, y)
        losses[k] = loss.item()  # expect: hidden-sync phase=eval per_step=1
    model.train()
    return losses.mean().item()


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
    print(f"transformer_lm: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters, {steps} steps")

    print(f"step 0: val loss {evaluate(model, val_data):.4f}")
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
            print(f"step {step}: train loss {loss.item():.4f}, lr {scheduler.get_last_lr()[0]:.2e}, {ms:.1f} ms/step")  # expect: hidden-sync every=5
        if step % EVAL_EVERY == 0:
            print(f"step {step}: val loss {evaluate(model, val_data):.4f}")
        if step % CKPT_EVERY == 0:
            torch.save(model.state_dict(), CKPT_PATH)  # expect: hidden-sync every=20 per_step=3.85 op=copy-to-host; pageable-copy every=20 per_step=3.85 op=copy-to-host
    print(f"transformer_lm: done, checkpoint in {CKPT_PATH}")


if __name__ == "__main__":
    main()
