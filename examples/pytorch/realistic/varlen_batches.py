"""A GRU language model on variable-length sequences, padded to a fixed
length, with the loss taken over the non-pad tokens by boolean-mask selection.

Model: embedding 128 (padding_idx 0), one-layer GRU (cuDNN) with 256 hidden
units, linear head over a vocabulary of 1000; batch 32, sequences of 16 to
128 real tokens padded with PAD=0 at the end (the GRU runs left to right, so
the padding never reaches a real position). Adam, clip_grad_norm_(1.0).
Batches are made on the GPU (lengths drawn per sequence; masked_fill with a
boolean tensor, no sync). Loss and token counts are logged every LOG_EVERY=5
steps through AsyncScalarLog (no sync); evaluation after training accumulates
on the GPU and reads once; the checkpoint is saved once after training.

One training step = one optimizer.step():
- `logits[active]` (active = targets != PAD): boolean-mask indexing runs
  nonzero, whose result size the host must read: one read-back sync ->
  hidden-sync, per_step 1.
- `targets[active]`: the same, one more sync at its own line -> per_step 1.
- `loss.backward()`: the backward of `logits[active]` (IndexBackward0) runs
  index_put_ with the saved boolean mask, which runs nonzero again: one sync
  per step, made on autograd's backward thread while the main thread waits in
  loss.backward() -> hidden-sync at that line (via=backward), per_step 1.
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
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "varlen_batches.pt")


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
        active_logits = logits[active]  # expect: hidden-sync op=nonzero
        active_targets = targets[active]  # expect: hidden-sync op=nonzero
        loss = F.cross_entropy(active_logits, active_targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()  # expect: hidden-sync via=backward
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss, tokens=active.sum())
    log.flush()

    print(f"varlen_batches: val loss {evaluate(model, val_data).item():.4f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
