"""Hugging Face Trainer with its default settings: a 4-layer GPT-2 initialised at
random, trained on random tokens (nothing is downloaded, no tokenizer).

The user's script is what a Trainer user writes: a Dataset, a model from a
config, TrainingArguments (_hf_setup.py, shared with the other Trainer
programs), `trainer.train()`. Logging every 10 steps, evaluation every 50
steps (4 eval batches), no checkpoints, no reporting integrations. Every sync below happens inside transformers or accelerate; the
user's only line that reaches them is `trainer.train()`.

Planted sites (the machine-readable lines below; format in
tests/gpu/check_libraries.py). Seen on an H200 with torch 2.11.0,
transformers 5.17.0, accelerate 1.15.0 at the lines given in `seen=`:
- transformers/trainer.py, Trainer._run_epoch: with the default
  logging_nan_inf_filter=True, Trainer checks every step's loss with
  `torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step)` (line 1847): two
  CUDA tensors used as Python bools, 2 syncs per step (transformers issue
  33693).
- accelerate/utils/operations.py, send_to_device (line 160), called from
  Trainer.get_batch_samples: Trainer pins its batches
  (dataloader_pin_memory=True by default) but copies them with
  non_blocking=False unless told otherwise: a blocking copy of a pinned
  tensor (copy, then a stream sync) for input_ids and labels, 2 per step
  and 2 per eval step.
- transformers/masking_utils.py, find_packed_sequence_indices (line 755):
  without an attention_mask and without a cache, every forward checks
  whether the position ids describe packed sequences with
  `if ... (packed_sequence_mask[:, -1] == 0).all():`, 1 per step and 1 per
  eval step.
- transformers/trainer.py, Trainer._maybe_log_save_evaluate: each log (every
  10 steps) reads the accumulated loss (line 2175) and the gradient norm
  (line 2182) with `.item()`: 2 every 10 steps.
- transformers/trainer_pt_utils.py, nested_numpify (line 165): at the end of
  each evaluation (every 50 steps) the gathered eval losses are brought to
  the host with `.cpu()` (into pageable memory): a copy to the host and its
  sync, reported as a hidden-sync and a pageable-copy. The evaluation at the last step falls in syncscope's
  teardown, so 3 of the 4 evaluations count.
Not planted: the default-stream findings at send_to_device (the batch copies
queue on the compute stream), and evaluation's one-off cudaHostAlloc.
"""
# check-steps: 200
# planted: hidden-sync sync=transformers/trainer.py:_run_epoch op=bool per_step=2 user=hf_trainer.py:trainer.train() seen=trainer.py:1847@transformers-5.17.0
# planted: hidden-sync sync=accelerate/utils/operations.py:send_to_device op=copy-to-device-pinned per_step=2 user=hf_trainer.py:trainer.train() seen=operations.py:160@accelerate-1.15.0
# planted: hidden-sync sync=accelerate/utils/operations.py:send_to_device op=copy-to-device-pinned per_step=2 phase=eval user=hf_trainer.py:trainer.train()
# planted: hidden-sync sync=transformers/masking_utils.py:find_packed_sequence_indices op=bool per_step=1 user=hf_trainer.py:trainer.train() seen=masking_utils.py:755@transformers-5.17.0
# planted: hidden-sync sync=transformers/masking_utils.py:find_packed_sequence_indices op=bool per_step=1 phase=eval user=hf_trainer.py:trainer.train()
# planted: hidden-sync sync=transformers/trainer.py:_maybe_log_save_evaluate op=item per_step=0.2 every=10 user=hf_trainer.py:trainer.train() seen=trainer.py:2175,2182@transformers-5.17.0
# planted: hidden-sync sync=transformers/trainer_pt_utils.py:nested_numpify op=copy-to-host per_step=0.02 every=50 user=hf_trainer.py:trainer.train() seen=trainer_pt_utils.py:165@transformers-5.17.0
# planted: pageable-copy sync=transformers/trainer_pt_utils.py:nested_numpify op=copy-to-host per_step=0.02 every=50 user=hf_trainer.py:trainer.train()
import sys
import tempfile

from _hf_setup import make_trainer


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as out_dir:
        trainer = make_trainer(steps, out_dir)
        trainer.train()
    print("done")


if __name__ == "__main__":
    main()
