# The training script the layout golden (expected_layout.txt) was "recorded" from.
import torch
from torch import nn


def train(model, optimizer, batches, log_every=10):
    model.train()
    for step, (x, y) in enumerate(batches):
        x = x.cuda(non_blocking=True)
        y = y.cuda(non_blocking=True)
        loss = nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        running = loss.item()
        if step % log_every == 0:
            print(f"step {step} loss {loss}")
    return running


def main():
    model = nn.Sequential(nn.Embedding(50000, 512), nn.Linear(512, 50000)).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    batches = [(torch.randint(0, 50000, (8, 128)), torch.randint(0, 50000, (8, 128))) for _ in range(120)]
    train(model, optimizer, batches)


if __name__ == "__main__":
    main()
