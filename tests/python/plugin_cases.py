"""Tests run BY tests/python/check_wheel.py under the installed plugin: each
name says what the plugin must make of it (fake runtime, fake_training.py)."""
import pytest

import fake_training
import syncscope


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_item_fails():
    for _ in range(5):
        fake_training.step()  # the sync at fake_training.py:35


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_fixed_passes():
    for _ in range(5):
        fake_training.step(read_back=False)


@pytest.mark.syncscope(fail_on="hidden-sync", budget="hidden-sync=10")
def test_marked_within_budget_passes():
    for _ in range(5):
        fake_training.step()


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_without_cuda_passes():
    assert sum(range(10)) == 45


def test_unmarked_item_passes():
    for _ in range(5):
        fake_training.step()


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_own_failure_is_reported_as_its_own():
    fake_training.step()
    assert False, "the test's own failure"


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_item_around_a_watch_fails():
    # The test's block holds the inner watch's: 2 + 1 calls at one line that syncs.
    with syncscope.watch() as inner:
        for _ in range(2):
            fake_training.step()
    assert [f.count for f in inner.findings if f.category == "hidden-sync"] == [2]
    fake_training.step()


@pytest.mark.syncscope(fail_on="hidden-sync", budget="hidden-sync=10")
def test_marked_with_a_clean_watch_inside_passes():
    with syncscope.watch() as inner:
        fake_training.step(read_back=False)
    assert not [f for f in inner.findings if f.category == "hidden-sync"]
    fake_training.step()


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_setup_and_final_read_pass():
    fake_training.read_loss()  # set-up: before the first step
    for _ in range(30):
        fake_training.step(read_back=False)
    fake_training.read_loss()  # one read after the loop


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_per_step_twin_fails():
    fake_training.read_loss()
    for _ in range(30):
        fake_training.step()  # a read every step: the line at fake_training.py:35
    fake_training.read_loss()


@pytest.mark.syncscope(fail_on="hidden-sync", include_warmup=True)
def test_marked_include_warmup_counts_setup_fails():
    fake_training.read_loss()
    for _ in range(30):
        fake_training.step(read_back=False)
    fake_training.read_loss()


@pytest.mark.syncscope(fail_on="hidden-sync")
def test_marked_without_steps_counts_everything_fails():
    fake_training.read_loss()
