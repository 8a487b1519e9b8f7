"""Issue 25's two tests, as a user writes them (tests/gpu/check_python.sh, e):
each builds its model with `.cuda()` inside the test (set-up copies and
their syncs) and runs 30 optimizer steps. The first reads the loss with
`float(loss)` every step and must fail, naming that line once; its twin
accumulates the loss on the GPU and reads it once after the loop, and must
pass: set-up and a one-off read after the loop are not the steady state.
No fixture warms anything up."""
import pytest
import torch

from train_item import forward_backward as step


def build():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(128, 256).cuda(), torch.randn(128, 1).cuda()
    return model, optimizer, x, y


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_float_loss_every_step():
    model, optimizer, x, y = build()
    losses = []
    for _ in range(30):
        losses.append(float(step(model, optimizer, x, y)))  # the per-step read
    assert len(losses) == 30


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_setup_then_one_final_read():
    model, optimizer, x, y = build()
    total = torch.zeros((), device="cuda")
    for _ in range(30):
        total = total + step(model, optimizer, x, y).detach()
    assert total.item() > 0  # one read after the loop
