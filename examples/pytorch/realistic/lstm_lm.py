"""An LSTM language model, structured like pytorch/examples' word_language_model:
one epoch of truncated backpropagation through time, then a validation pass
and a test pass.

Model: embedding 128, 2-layer LSTM (cuDNN) with 256 hidden units, dropout,
linear decoder, log-softmax + NLL loss; vocabulary 1000, bptt 35, batch 20.
The corpus is a synthetic token stream on the GPU, batchified as in the
example. SGD (lr 20) with clip_grad_norm_(0.25): with its default
error_if_nonfinite=False the total norm stays on the GPU, no sync.

One training step = one optimizer.step() = one bptt batch:
- `total_loss += loss.item()` every step: one read-back sync per step ->
  hidden-sync, per_step 1. The progress line every LOG_INTERVAL=5 steps prints
  total_loss, a Python float: no further sync.
After training:
- validation: evaluate(val_data), EVAL_BATCHES=20 batches of 35x10 tokens
  under torch.no_grad(), each `total_loss += len(data) * loss.item()`: one
  read-back sync per eval step -> hidden-sync in an eval phase, per_step 1
  (per eval step). The model is checkpointed once after validation (a one-off
  torch.save, not marked).
- test: evaluate(test_data), the same function and line, 20 more batches:
  again per_step 1 in an eval phase (syncscope may call it eval or eval-2).
"""
import math
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import steps_from_argv

NTOKENS, EMSIZE, NHID, NLAYERS, DROPOUT = 1000, 128, 256, 2, 0.2
BPTT, BATCH_SIZE, EVAL_BATCH_SIZE, EVAL_BATCHES = 35, 20, 10, 20
LR, CLIP, LOG_INTERVAL = 20.0, 0.25, 5
SAVE = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "lstm_lm.pt")


class RNNModel(nn.Module):
    """Encoder, recurrent module and decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout):
        super().__init__()
        self.ntoken, self.nhid, self.nlayers = ntoken, nhid, nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def synthetic_corpus(n_tokens, seed):
    """Each token is the previous one plus 1, 2 or 3 (mod NTOKENS)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randint(1, 4, (n_tokens,), device="cuda", generator=g).cumsum(0) % NTOKENS


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(model, criterion, data_source):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(EVAL_BATCH_SIZE)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, BPTT):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()  # expect: hidden-sync phase=eval per_step=1
    return total_loss / (len(data_source) - 1)


def train(model, criterion, optimizer, train_data, epoch):
    model.train()
    total_loss = 0.0
    start_time = time.time()
    hidden = model.init_hidden(BATCH_SIZE)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        data, targets = get_batch(train_data, i)
        optimizer.zero_grad(set_to_none=True)
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()

        total_loss += loss.item()  # expect: hidden-sync op=item

        if batch % LOG_INTERVAL == 0 and batch > 0:
            cur_loss = total_loss / LOG_INTERVAL
            elapsed = time.time() - start_time
            print(f"| epoch {epoch:3d} | {batch:5d} batches | ms/batch {elapsed * 1000 / LOG_INTERVAL:6.2f} "
                  f"| loss {cur_loss:5.2f} | ppl {math.exp(cur_loss):8.2f}")
            total_loss = 0.0
            start_time = time.time()


def main():
    steps = steps_from_argv()
    torch.manual_seed(1111)
    train_data = batchify(synthetic_corpus((steps * BPTT + 1) * BATCH_SIZE, seed=1), BATCH_SIZE)
    val_data = batchify(synthetic_corpus((EVAL_BATCHES * BPTT + 1) * EVAL_BATCH_SIZE, seed=2), EVAL_BATCH_SIZE)
    test_data = batchify(synthetic_corpus((EVAL_BATCHES * BPTT + 1) * EVAL_BATCH_SIZE, seed=3), EVAL_BATCH_SIZE)
    model = RNNModel(NTOKENS, EMSIZE, NHID, NLAYERS, DROPOUT).cuda()
    criterion = nn.NLLLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    os.makedirs(os.path.dirname(SAVE), exist_ok=True)

    epoch_start_time = time.time()
    train(model, criterion, optimizer, train_data, epoch=1)
    val_loss = evaluate(model, criterion, val_data)
    print("-" * 89)
    print(f"| end of epoch 1 | time: {time.time() - epoch_start_time:5.2f}s | valid loss {val_loss:5.2f} "
          f"| valid ppl {math.exp(val_loss):8.2f}")
    print("-" * 89)
    torch.save(model.state_dict(), SAVE)  # the best (only) epoch so far

    test_loss = evaluate(model, criterion, test_data)
    print("=" * 89)
    print(f"| End of training | test loss {test_loss:5.2f} | test ppl {math.exp(test_loss):8.2f}")
    print("=" * 89)


if __name__ == "__main__":
    main()
