"""masked_backward.py fixed: the same masked autoencoder and loop; the loss
over the masked patches is computed as in the official MAE code, with the
mask as weights: the per-patch error times the mask, summed, divided by
mask.sum() — all on the GPU, fixed shapes, no nonzero in the forward and none
in the backward. Expected: no steady-state finding at all.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import AsyncScalarLog, steps_from_argv

IMG, PATCH, WIDTH, HEADS, DEPTH = 32, 4, 192, 3, 4
N_PATCHES, PATCH_DIM = (IMG // PATCH) ** 2, PATCH * PATCH * 3
BATCH, MASK_RATIO, LOG_EVERY, EVAL_BATCHES = 64, 0.75, 5, 4
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "masked_backward_fixed.pt")


def patchify(imgs):
    """(B, 3, H, W) -> (B, L, PATCH*PATCH*3)."""
    b, c, h, w = imgs.shape
    x = imgs.reshape(b, c, h // PATCH, PATCH, w // PATCH, PATCH)
    return x.permute(0, 2, 4, 3, 5, 1).reshape(b, (h // PATCH) * (w // PATCH), PATCH * PATCH * c)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.norm2 = nn.LayerNorm(WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, HEADS, c // HEADS).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(y.transpose(1, 2).reshape(b, n, c))
        return x + self.mlp(self.norm2(x))


class MaskedAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Linear(PATCH_DIM, WIDTH)
        self.pos_embed = nn.Parameter(torch.zeros(1, N_PATCHES, WIDTH))
        self.mask_token = nn.Parameter(torch.zeros(1, 1, WIDTH))
        self.blocks = nn.ModuleList([Block() for _ in range(DEPTH)])
        self.norm = nn.LayerNorm(WIDTH)
        self.pred = nn.Linear(WIDTH, PATCH_DIM)
        nn.init.normal_(self.pos_embed, std=0.02)
        nn.init.normal_(self.mask_token, std=0.02)

    def forward(self, patches, mask):
        x = self.patch_embed(patches)
        x = torch.where(mask.unsqueeze(-1), self.mask_token.to(x.dtype), x) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.pred(self.norm(x))


class SyntheticImages:
    """Smooth random images on the GPU: low-resolution noise upsampled."""

    def batch(self):
        low = torch.randn(BATCH, 3, 8, 8, device="cuda")
        return F.interpolate(low, size=(IMG, IMG), mode="bilinear", align_corners=False)


def random_mask(batch):
    return torch.rand(batch, N_PATCHES, device="cuda") < MASK_RATIO


@torch.no_grad()
def evaluate(model, data):
    model.eval()
    total = torch.zeros((), device="cuda")
    for _ in range(EVAL_BATCHES):
        patches = patchify(data.batch())
        mask = random_mask(BATCH)
        per_patch = ((model(patches, mask) - patches) ** 2).mean(dim=-1)
        total += (per_patch * mask).sum() / mask.sum()
    model.train()
    return total / EVAL_BATCHES


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    data = SyntheticImages()
    model = MaskedAutoencoder().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1.5e-4 * BATCH / 256 * 10, betas=(0.9, 0.95), weight_decay=0.05)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    log = AsyncScalarLog()

    for step in range(1, steps + 1):
        patches = patchify(data.batch())
        mask = random_mask(BATCH)
        pred = model(patches, mask)
        per_patch = ((pred - patches) ** 2).mean(dim=-1)
        loss = (per_patch * mask).sum() / mask.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss)
    log.flush()

    print(f"masked_backward_fixed: eval reconstruction loss {evaluate(model, data).item():.4f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
