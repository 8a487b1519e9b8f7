"""The pytest plugin (registered by the wheel's `pytest11` entry point; or
`-p syncscope.pytest_plugin`), docs/python.md:

    @pytest.mark.syncscope(fail_on="hidden-sync", budget="hidden-sync=1/step",
                           suppressions="ci/syncscope.supp", include_warmup=False)
    def test_train_step(): ...

fails that test, with each offending line in the failure message, when its
body makes those findings in its steady state (as `syncscope run`'s gate
judges a run: set-up before the first step and one-off reads after the
loop do not count; `include_warmup=True` counts them; a test in which no
steps are found has every call counted, and the message says so).
`pytest --syncscope` records every test and prints a summary of the
findings at the end. Without the marker or the option the plugin does
nothing: no recorder is loaded, nothing is printed.

The test function itself runs inside the recording, so a failure is the
test's own (raised from its call, as an assert in its body would be), never
an error of a hook wrapper.
"""
import functools
import inspect

import pytest

import syncscope


def pytest_addoption(parser):
    group = parser.getgroup("syncscope", "hidden syncs and other host/GPU stalls (syncscope)")
    group.addoption("--syncscope", action="store_true", default=False,
                    help="record every test with syncscope and print the findings at the end")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "syncscope(fail_on='hidden-sync', budget=None, suppressions=None, include_warmup=False): fail "
        "the test when its body makes findings of these categories (comma list or 'all') beyond the budget, in its "
        "steady state (every phase with include_warmup=True)")
    config._syncscope_summary = []


def _guarded(function, item, marker, record_all):
    """`function` run inside a recording: an assert_no_syncs for a marked
    test, a plain watch for --syncscope."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        __tracebackhide__ = True
        if marker is not None:
            guard = syncscope.assert_no_syncs(categories=marker.kwargs.get("fail_on", syncscope.DEFAULT_CATEGORIES),
                                              budget=marker.kwargs.get("budget"),
                                              suppressions=marker.kwargs.get("suppressions"),
                                              include_warmup=marker.kwargs.get("include_warmup", False))
        else:
            guard = syncscope.watch()
        try:
            watch = guard.__enter__()
        except syncscope.SyncscopeError as e:
            result = function(*args, **kwargs)
            if marker is not None:
                pytest.fail("syncscope could not record this test: %s" % e, pytrace=False)
            return result
        try:
            try:
                result = function(*args, **kwargs)
            except BaseException as failure:
                try:
                    guard.__exit__(type(failure), failure, failure.__traceback__)
                except syncscope.SyncsFound:
                    pass  # the test failed already: its own error is the one to show
                raise
            message = None
            try:
                guard.__exit__(None, None, None)
            except syncscope.SyncsFound as found:
                message = str(found)
            if message is not None:
                # The test's own failure: its message, the offending lines, no traceback of ours.
                pytest.fail(message, pytrace=False)
            return result
        finally:
            if record_all:
                item.config._syncscope_summary.append((item.nodeid, list(watch.findings)))

    run._syncscope_guarded = True
    return run


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("syncscope")
    record_all = item.config.getoption("--syncscope")
    if marker is None and not record_all:
        return
    function = getattr(item, "obj", None)
    if not isinstance(item, pytest.Function) or not callable(function) or getattr(function, "_syncscope_guarded",
                                                                                     False):
        return
    if inspect.iscoroutinefunction(function) or inspect.isgeneratorfunction(function):
        return  # run by another plugin's loop: not ours to wrap
    item.obj = _guarded(function, item, marker, record_all)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not config.getoption("--syncscope"):
        return
    summary = config._syncscope_summary
    terminalreporter.section("syncscope")
    with_findings = [(nodeid, findings) for nodeid, findings in summary if findings]
    terminalreporter.write_line("%d test(s) recorded, %d with findings" % (len(summary), len(with_findings)))
    for nodeid, findings in with_findings:
        terminalreporter.write_line(nodeid)
        for f in findings:
            terminalreporter.write_line("    " + f.describe())
