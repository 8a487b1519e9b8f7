"""The pytest plugin (registered by the wheel's `pytest11` entry point; or
`-p syncscope.pytest_plugin`), docs/python.md:

    @pytest.mark.syncscope(fail_on="hidden-sync", budget="hidden-sync=1/step",
                           suppressions="ci/syncscope.supp")
    def test_train_step(): ...

fails that test, with each offending line in the failure message, when its
body makes those findings; `pytest --syncscope` records every test and prints
a summary of the findings at the end. Without the marker or the option the
plugin does nothing: no recorder is loaded, nothing is printed.
"""
import pytest

import syncscope


def pytest_addoption(parser):
    group = parser.getgroup("syncscope", "hidden syncs and other host/GPU stalls (syncscope)")
    group.addoption("--syncscope", action="store_true", default=False,
                    help="record every test with syncscope and print the findings at the end")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "syncscope(fail_on='hidden-sync', budget=None, suppressions=None): fail the test when its body "
        "makes findings of these categories (comma list or 'all') beyond the budget")
    config._syncscope_summary = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("syncscope")
    record_all = item.config.getoption("--syncscope")
    if marker is None and not record_all:
        yield
        return
    if marker is not None:
        guard = syncscope.assert_no_syncs(categories=marker.kwargs.get("fail_on", syncscope.DEFAULT_CATEGORIES),
                                          budget=marker.kwargs.get("budget"),
                                          suppressions=marker.kwargs.get("suppressions"))
    else:
        guard = syncscope.watch()
    try:
        watch = guard.__enter__()
    except syncscope.SyncscopeError as e:
        outcome = yield
        if marker is not None and outcome.excinfo is None:
            pytest.fail("syncscope could not record this test: %s" % e, pytrace=False)
        return
    outcome = yield
    try:
        if outcome.excinfo is None:
            # SyncsFound raised here, after the test body, is the test's
            # failure: pytest reports it with the offending lines.
            guard.__exit__(None, None, None)
        else:
            try:
                guard.__exit__(*outcome.excinfo)
            except syncscope.SyncsFound:
                pass  # the test failed already; its own error is the one to show
    finally:
        if record_all:
            item.config._syncscope_summary.append((item.nodeid, list(watch.findings)))


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
