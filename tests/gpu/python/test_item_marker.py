"""The pytest marker on a PyTorch training step (tests/gpu/check_python.sh):
the test reading the loss with .item() every step must fail, naming
train_item.py's `.item()` line; its fixed twin must pass. The fixture's
warm-up (allocations, cuBLAS) is outside the tests' bodies, so outside the
recorded blocks."""
import pytest
import torch

import train_item


@pytest.fixture
def state():
    s = train_item.model_and_data()
    train_item.warm_up(s)
    return s


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_item_every_step(state):
    history = []
    for _ in range(10):
        train_item.item_step(state, history)


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_fixed_twin(state):
    total = torch.zeros((), device="cuda")
    for _ in range(10):
        total = train_item.fixed_step(state, total)
