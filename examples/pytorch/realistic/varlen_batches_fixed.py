"""varlen_batches.py fixed: the same model, padded batches and loop; the loss
over the non-pad tokens is taken with cross_entropy(..., ignore_index=PAD) on
the whole padded batch (the mean over the non-ignored targets is computed on
the GPU), instead of selecting them with boolean masks. No data-dependent
shapes: no nonzero in the forward, none in the backward.
Expected: no steady-state finding at all.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import AsyncScalarLog, steps_from_argv

VOCAB, PAD, EMBED, HIDDEN = 1000, 0, 128, 256
BATCH, MAX_LEN, MIN_LEN = 32, 128, 16
LOG_EVERY, EVAL_BATCHES = 5, 8
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "varlen_batches_fixed.pt")


class GRULanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED, padding_idx=PAD)
        self.gru = nn.GRU(EMBED, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens):
        out, _ = self.gru(self.embed(tokens))
        return self.head(out)


class PaddedSequences:
    """Sequences of random length from a token stream (each token the previous
    one plus 1, 2 or 3, never PAD), padded to MAX_LEN on the right."""

    def __init__(self, n_tokens, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.tokens = torch.randint(1, 4, (n_tokens,), device="cuda", generator=g).cumsum(0) % (VOCAB - 1) + 1
        self.window = torch.arange(MAX_LEN + 1, device="cuda")

    def batch(self):
        starts = torch.randint(len(self.tokens) - MAX_LEN - 1, (BATCH, 1), device="cuda")
        chunk = self.tokens[starts + self.window]
        lengths = torch.randint(MIN_LEN, MAX_LEN + 1, (BATCH, 1), device="cuda")
        position = self.window[:-1]
        inputs = chunk[:, :-1].masked_fill(position >= lengths, PAD)
        targets = chunk[:, 1:].masked_fill(position >= lengths - 1, PAD)  # the last real token predicts nothing
        return inputs, targets


@torch.no_grad()
def evaluate(model, data):
    model.eval()
    total, count = torch.zeros((), device="cuda"), torch.zeros((), device="cuda")
    for _ in range(EVAL_BATCHES):
        inputs, targets = data.batch()
        logits = model(inputs)
        total += F.cross_entropy(logits.view(-1, VOCAB), targets.reshape(-1), ignore_index=PAD, reduction="sum")
        count += (targets != PAD).sum()
    model.train()
    return total / count


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    train_data, val_data = PaddedSequences(200_000, seed=1), PaddedSequences(20_000, seed=2)
    model = GRULanguageModel().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    log = AsyncScalarLog()

    for step in range(1, steps + 1):
        inputs, targets = train_data.batch()
        logits = model(inputs)
        active = targets != PAD
        loss = F.cross_entropy(logits.view(-1, VOCAB), targets.reshape(-1), ignore_index=PAD)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss, tokens=active.sum())
    log.flush()

    print(f"varlen_batches_fixed: val loss {evaluate(model, val_data).item():.4f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
