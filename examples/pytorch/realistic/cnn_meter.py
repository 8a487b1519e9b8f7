"""A small ResNet on synthetic 32x32 images, with the AverageMeter /
ProgressMeter bookkeeping of pytorch/examples' imagenet script.

Model: a CIFAR-style ResNet (3 stages of 2 BasicBlocks, 16/32/64 channels,
BatchNorm), 10 classes, batch 128; SGD with momentum, nesterov and weight
decay; cosine learning rate; cudnn.benchmark. Images are made on the GPU: a
fixed template per class plus noise.

One training step = one optimizer.step(). The meters are updated every step
with tensors that stay on the GPU (`losses.update(loss.detach(), n)`,
`top1.update(acc1[0], n)`: no sync), and the user believes that this avoids
.item(). But every PRINT_FREQ=5 steps ProgressMeter.display() formats each
meter with AverageMeter.__str__, whose f-string formats `self.val` and
`self.avg` with a format spec; for the losses and top1 meters those are 0-dim
CUDA tensors, and Tensor.__format__ calls .item(): a read-back sync each. So
each display makes 2 meters x 2 values = 4 syncs, all at the f-string line in
__str__ (the innermost frame outside PyTorch) -> hidden-sync, per_step 4/5 =
0.8 (every=5). batch_time and data_time hold Python floats: no sync.
After training, validate() updates meters on the GPU and shows one summary
(a one-off, not per-step), and the checkpoint is saved once.
"""
import os
import tempfile
import time

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F

from _train_utils import steps_from_argv

NUM_CLASSES, BATCH_SIZE, VAL_BATCHES, PRINT_FREQ = 10, 128, 8, 5
CHECKPOINT = os.path.join(tempfile.gettempdir(), "syncscope-realistic", "cnn_meter.pth.tar")


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, blocks=(2, 2, 2), widths=(16, 32, 64), num_classes=NUM_CLASSES):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        layers, in_planes = [], widths[0]
        for i, (n, w) in enumerate(zip(blocks, widths)):
            for j in range(n):
                layers.append(BasicBlock(in_planes, w, stride=2 if (i > 0 and j == 0) else 1))
                in_planes = w
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(in_planes, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layers(out)
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.fc(out)


class SyntheticImages:
    """Batches of 3x32x32 images on the GPU: a fixed template per class plus noise."""

    def __init__(self, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.templates = torch.randn(NUM_CLASSES, 3, 32, 32, device="cuda", generator=g)

    def batch(self):
        target = torch.randint(0, NUM_CLASSES, (BATCH_SIZE,), device="cuda")
        images = self.templates[target] + 1.5 * torch.randn(BATCH_SIZE, 3, 32, 32, device="cuda")
        return images, target


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self, name, fmt=":f"):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        return f"{self.name} {self.val:{self.fmt[1:]}} ({self.avg:{self.fmt[1:]}})"  # expect: hidden-sync every=5 per_step=0.8 op=item

    def summary(self):
        return f"{self.name} {self.avg:{self.fmt[1:]}}"


class ProgressMeter:
    def __init__(self, num_batches, meters, prefix=""):
        self.batch_fmtstr = self._get_batch_fmtstr(num_batches)
        self.meters = meters
        self.prefix = prefix

    def display(self, batch):
        entries = [self.prefix + self.batch_fmtstr.format(batch)]
        entries += [str(meter) for meter in self.meters]
        print("\t".join(entries), flush=True)

    def display_summary(self):
        print(" * " + " ".join(meter.summary() for meter in self.meters), flush=True)

    @staticmethod
    def _get_batch_fmtstr(num_batches):
        num_digits = len(str(num_batches))
        fmt = "{:" + str(num_digits) + "d}"
        return "[" + fmt + "/" + fmt.format(num_batches) + "]"


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def train(data, model, criterion, optimizer, scheduler, steps):
    batch_time = AverageMeter("Time", ":6.3f")
    data_time = AverageMeter("Data", ":6.3f")
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    progress = ProgressMeter(steps, [batch_time, data_time, losses, top1], prefix="Epoch: [0]")
    model.train()
    end = time.time()
    for i in range(1, steps + 1):
        images, target = data.batch()
        data_time.update(time.time() - end)
        output = model(images)
        loss = criterion(output, target)
        acc1, = accuracy(output, target, topk=(1,))
        losses.update(loss.detach(), images.size(0))
        top1.update(acc1[0], images.size(0))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        scheduler.step()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % PRINT_FREQ == 0:
            progress.display(i)


def validate(data, model, criterion):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    progress = ProgressMeter(VAL_BATCHES, [losses, top1], prefix="Test: ")
    model.eval()
    with torch.no_grad():
        for _ in range(VAL_BATCHES):
            images, target = data.batch()
            output = model(images)
            loss = criterion(output, target)
            acc1, = accuracy(output, target, topk=(1,))
            losses.update(loss, images.size(0))
            top1.update(acc1[0], images.size(0))
    progress.display_summary()
    return top1.avg


def main():
    steps = steps_from_argv()
    torch.manual_seed(0)
    cudnn.benchmark = True
    data = SyntheticImages(seed=1)
    model = ResNet().cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)

    train(data, model, criterion, optimizer, scheduler, steps)
    acc1 = validate(data, model, criterion)
    torch.save({"epoch": 1, "state_dict": model.state_dict(), "best_acc1": acc1,
                "optimizer": optimizer.state_dict()}, CHECKPOINT)
    print(f"cnn_meter: checkpoint in {CHECKPOINT}")


if __name__ == "__main__":
    main()
