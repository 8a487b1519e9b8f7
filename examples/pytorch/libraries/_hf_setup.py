"""What the three Trainer programs share: a 4-layer GPT-2 initialised at
random, random token data (nothing downloaded, no tokenizer) and the
TrainingArguments of a typical run (log every 10 steps, evaluate every 50,
no checkpoints, no reporting integrations). Each program passes the
settings it is about and calls `trainer.train()` on its own line, the line a
finding names as the user's."""
import torch
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

VOCAB, SEQ, BATCH = 1024, 128, 16
EVAL_SAMPLES = 4 * BATCH


class RandomTokens(Dataset):
    """Random token ids; the labels are the inputs (the model shifts them)."""

    def __init__(self, samples, seed):
        generator = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(0, VOCAB, (samples, SEQ), generator=generator)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


def make_trainer(steps, out_dir, **settings):
    """A Trainer for `steps` steps writing to `out_dir`, with `settings`
    added to (or replacing) the TrainingArguments below."""
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=VOCAB, n_positions=SEQ, n_embd=256, n_layer=4, n_head=4)
    model = GPT2LMHeadModel(config)
    arguments = dict(
        output_dir=out_dir,
        max_steps=steps,
        per_device_train_batch_size=BATCH,
        per_device_eval_batch_size=BATCH,
        learning_rate=3e-4,
        logging_steps=10,
        eval_strategy="steps",
        eval_steps=50,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        seed=0,
    )
    arguments.update(settings)
    return Trainer(model=model, args=TrainingArguments(**arguments),
                   train_dataset=RandomTokens(steps * BATCH, seed=1),
                   eval_dataset=RandomTokens(EVAL_SAMPLES, seed=2))
