#!/usr/bin/env python3
"""Does a sync slow the host work after it? (issue 27, docs/what-if.md)

On an H200 the host-bound read-back twins saved more than the replay
predicts: readback_host_bound.py (its twins differ in one `.item()` line)
and item_logging.py recorded 20-30% more host work outside CUDA calls in
the broken twin than in the fixed one, and plain runs cannot tell a few
percent apart (rounds of one twin ranged over ±20%). This measures the
effect in one process, interleaved step by step, so that what drifts
between rounds and processes falls on both sides alike:

readback_host_bound.py's loop (width 256: well under 0.1 ms of GPU work
and about 1 ms of host work a step) where each step reads its loss back or
not, in blocks of BLOCK steps alternating (BLOCK 1: every other step). Per
step it times, on the host, the step's own work (from its start to after
optimizer.step(), before any read) and the read. It reports the mean own
work of steps that follow a read against steps that follow none, with the
95% interval of the difference over adjacent pairs. The replay keeps the
host's own work as recorded (whatif/replay.h), so an after-effect here is
what it cannot predict.

    sync_aftereffect.py [--steps N] [--block B ...] [--how item|synchronize]
"""
import argparse
import json
import random
import statistics
import time

import torch


def run(steps, block, how, width):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(6)]).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    x = torch.randn(256, width, device="cuda")
    order = list(range(3000))
    sampler = random.Random(0)
    own, read, synced = [], [], []
    kept = []
    for step in range(steps):
        sync = (step // block) % 2 == 0
        t0 = time.perf_counter()
        sampler.shuffle(order)
        optimizer.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        optimizer.step()
        t1 = time.perf_counter()
        if sync:
            if how == "item":
                kept.append(loss.item())
            else:
                torch.cuda.synchronize()
        else:
            kept.append(loss.detach())
        t2 = time.perf_counter()
        own.append(t1 - t0)
        read.append(t2 - t1)
        synced.append(sync)
        if len(kept) > 1000:
            kept.clear()
    torch.cuda.synchronize()
    return own, read, synced


def interval(diffs):
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
    return mean, mean - half, mean + half


def summarize(own, read, synced, block):
    first = len(own) // 5  # past warm-up
    after_sync = [own[i] for i in range(first, len(own)) if synced[i - 1]]
    after_none = [own[i] for i in range(first, len(own)) if not synced[i - 1]]
    # Adjacent pairs: a step that follows a read against the next one that follows none.
    diffs = []
    i = first
    while i + block < len(own):
        if synced[i - 1] and not synced[i + block - 1]:
            diffs.append(own[i] - own[i + block])
        i += 1
    mean, low, high = interval(diffs)
    base = statistics.mean(after_none)
    return {
        "block": block,
        "steps_after_read": len(after_sync),
        "own_after_read_us": statistics.mean(after_sync) * 1e6,
        "own_after_none_us": base * 1e6,
        "own_median_after_read_us": statistics.median(after_sync) * 1e6,
        "own_median_after_none_us": statistics.median(after_none) * 1e6,
        "difference_us": mean * 1e6,
        "difference_ci_us": [low * 1e6, high * 1e6],
        "difference_share": mean / base,
        "read_us": statistics.mean(read[i] for i in range(first, len(read)) if synced[i]) * 1e6,
        "no_read_us": statistics.mean(read[i] for i in range(first, len(read)) if not synced[i]) * 1e6,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--block", type=int, action="append", help="steps per block (default: 1 and 10)")
    parser.add_argument("--how", default="item", choices=["item", "synchronize"])
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    results = []
    for block in args.block or [1, 10]:
        own, read, synced = run(args.steps, block, args.how, args.width)
        r = summarize(own, read, synced, block)
        r["how"] = args.how
        results.append(r)
        print(f"{args.how:11} block {block:3}: own work after a read {r['own_after_read_us']:7.1f} µs"
              f" (median {r['own_median_after_read_us']:.1f}), after none {r['own_after_none_us']:7.1f} µs"
              f" (median {r['own_median_after_none_us']:.1f}); difference {r['difference_us']:+.1f} µs"
              f" ({r['difference_share']:+.1%}, 95% CI {r['difference_ci_us'][0]:+.1f}..{r['difference_ci_us'][1]:+.1f});"
              f" the read {r['read_us']:.1f} µs, no read {r['no_read_us']:.1f} µs", flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
