"""libraries/accelerate_loop_fixed.py with its Accelerator's settings as
arguments, to time each change of the fixed twin alone (docs/what-if.md,
"Which of Accelerate's changes costs"):

    accelerate_settings.py STEPS (fp16|bf16) [blocking]

fp16 or bf16: Accelerator(mixed_precision=...): with fp16, Accelerate steps
through torch's GradScaler (its found_inf `.item()` a step, and its scale,
unscale and update kernels); with bf16 there is no GradScaler. blocking:
DataLoaderConfiguration(non_blocking=False), Accelerate's default, where
send_to_device waits for each batch copy. The log line is the fixed twin's
(asynchronous) in every setting. Each setting is a process of its own
(check_whatif.py --separate): Accelerate keeps one AcceleratorState per
process.
"""
import os
import runpy
import sys

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "pytorch", "libraries",
                       "accelerate_loop_fixed.py")


def main():
    flags = set(sys.argv[2:])
    precision = [f for f in flags if f in ("fp16", "bf16")]
    if len(precision) != 1 or flags - {"fp16", "bf16", "blocking"}:
        sys.exit("usage: accelerate_settings.py STEPS (fp16|bf16) [blocking]")
    example = runpy.run_path(EXAMPLE, run_name="accelerate_loop_fixed")["main"].__globals__  # what main() reads
    make_accelerator, config = example["Accelerator"], example["DataLoaderConfiguration"]

    def accelerator(**kwargs):  # the example's own settings replaced
        kwargs.update(mixed_precision=precision[0],
                      dataloader_config=config(non_blocking="blocking" not in flags))
        return make_accelerator(**kwargs)

    example["Accelerator"] = accelerator
    example["main"]()


if __name__ == "__main__":
    main()
