"""Hugging Face Trainer with TrainingArguments(torch_compile=True): the same
4-layer random GPT-2 on random tokens as hf_trainer.py, compiled by
torch.compile (Inductor, default mode) when Trainer prepares the model. The
first steps are long (Dynamo traces, Inductor compiles the forward and the
backward); evaluation compiles an inference graph once more.

Compilation removes none of the Trainer's own syncs, which sit outside the
compiled model (planted lines below; seen with torch 2.11.0, transformers
5.17.0, accelerate 1.15.0 at the lines of hf_trainer.py):
- transformers/trainer.py, Trainer._run_epoch: the nan/inf filter on each
  step's loss, `torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step)`, 2
  per step;
- accelerate/utils/operations.py, send_to_device: the blocking copy of the
  pinned batch, 2 per step and 2 per eval step;
- transformers/trainer.py, Trainer._maybe_log_save_evaluate: `.item()` of
  the loss and the gradient norm at each log (every 10 steps);
- transformers/trainer_pt_utils.py, nested_numpify: the eval losses brought
  to the host at the end of each evaluation (every 50 steps).
One sync of hf_trainer.py is gone from the training steps:
find_packed_sequence_indices in transformers' mask creation skips its check
while Dynamo traces (`absent` line). Evaluation still runs it, 1 per eval
step (the evaluation's forward is not traced here).
The first batch of each evaluation is counted in the training phase, so the
absent line allows 0.05 per training step (3 calls in 198 steps). The fixes
are those of hf_trainer_fixed.py.
"""
# check-steps: 200
# planted: hidden-sync sync=transformers/trainer.py:_run_epoch op=bool per_step=2 user=hf_trainer_compiled.py:trainer.train()
# planted: hidden-sync sync=accelerate/utils/operations.py:send_to_device op=copy-to-device-pinned per_step=2 user=hf_trainer_compiled.py:trainer.train()
# planted: hidden-sync sync=accelerate/utils/operations.py:send_to_device op=copy-to-device-pinned per_step=2 phase=eval user=hf_trainer_compiled.py:trainer.train()
# planted: hidden-sync sync=transformers/trainer.py:_maybe_log_save_evaluate op=item per_step=0.2 every=10 user=hf_trainer_compiled.py:trainer.train()
# planted: hidden-sync sync=transformers/trainer_pt_utils.py:nested_numpify op=copy-to-host per_step=0.02 every=50 user=hf_trainer_compiled.py:trainer.train()
# planted: pageable-copy sync=transformers/trainer_pt_utils.py:nested_numpify op=copy-to-host per_step=0.02 every=50 user=hf_trainer_compiled.py:trainer.train()
# planted: hidden-sync sync=transformers/masking_utils.py:find_packed_sequence_indices op=bool per_step=1 phase=eval user=hf_trainer_compiled.py:trainer.train()
# absent: hidden-sync sync=transformers/masking_utils.py:find_packed_sequence_indices max_per_step=0.05
import sys
import tempfile

from _hf_setup import make_trainer


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as out_dir:
        trainer = make_trainer(steps, out_dir, torch_compile=True)
        trainer.train()
    print("done")


if __name__ == "__main__":
    main()
