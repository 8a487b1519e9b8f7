"""A masked autoencoder (MAE-style) on synthetic images, whose reconstruction
loss is taken over the masked patches by boolean-mask selection.

Model: 32x32x3 images cut into 64 patches of 4x4x3; a patch embedding (width
192) with learned positions, a learned mask token in place of the 75% of
patches hidden in each image, 4 transformer blocks (non-causal
scaled_dot_product_attention, 3 heads, GELU MLP), a linear head back to
pixels. AdamW; batch 64. Masks are drawn on the GPU (torch.rand < 0.75, no
sync). Logging every LOG_EVERY=5 steps goes through AsyncScalarLog (no sync);
evaluation after training accumulates on the GPU and reads once; the
checkpoint is saved once after training.

One training step = one optimizer.step():
- `pred[mask]`: boolean-mask indexing runs nonzero, whose result size the host
  must read: one read-back sync in the forward -> hidden-sync, per_step 1.
- `patches[mask]`: the same for the target, at its own line -> per_step 1.
- `loss.backward()`: the backward of `pred[mask]` (IndexBackward0) runs
  index_put_ with the saved boolean mask, which runs nonzero again: one more
  sync per step. It is made on autograd's backward thread, which has no
  Python frames, while the main thread waits in loss.backward(); syncscope
  must attribute it to that line -> hidden-sync at the loss.backward() line,
  via=backward, per_step 1.
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
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "masked_backward.pt")


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
        masked_pred = pred[mask]  # expect: hidden-sync op=nonzero
        masked_target = patches[mask]  # expect: hidden-sync op=nonzero
        loss = F.mse_loss(masked_pred, masked_target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()  # expect: hidden-sync via=backward op=nonzero
        optimizer.step()
        if step % LOG_EVERY == 0:
            log.log(f"step {step}", loss=loss)
    log.flush()

    print(f"masked_backward: eval reconstruction loss {evaluate(model, data).item():.4f}")
    torch.save(model.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
