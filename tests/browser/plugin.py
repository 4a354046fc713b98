"""The rule of the ``browser`` marker, for every test that carries it, in tests/browser/ or not
(loaded by pyproject.toml's addopts: ``-p tests.browser.plugin``).

* The Chromium is the one ``tools.browser.find_chromium`` finds (ATTNVIZ_CHROMIUM, Playwright's
  own browser, /usr/bin/chromium), looked up once, and named in the run's header.
* Without one, a browser test is skipped, all for the one reason given, so that
  ``python -m pytest`` works on a machine with no Chromium.
* Under CI (the ``CI`` environment variable set, and not to false or 0), a missing Chromium fails
  every browser test instead: CI never passes because its browser tests dropped out.
* Under ``--dist loadfile`` (tests/run.sh's browser tier), the files that share the cluster of
  Redis, two replicas and nginx (conftest.py's ``cluster``) go to one worker as one unit, so the
  cluster starts once, not once on each worker that draws one of them.
"""

import os

import pytest

from tools.browser import ChromiumNotFoundError, find_chromium

CLUSTER_FILES = ("tests/browser/test_faults.py", "tests/browser/test_replicas.py")


def in_ci():
    return os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}


def _is_browser_test(item):
    return item.get_closest_marker("browser") is not None


def pytest_collection_finish(session):
    if not any(_is_browser_test(item) for item in session.items):
        return  # no need to look for a Chromium
    try:
        path, where = find_chromium()
        line = f"browser tests: {path} ({where})"
    except ChromiumNotFoundError as exc:
        line = f"browser tests: {exc}: they {'FAIL under CI' if in_ci() else 'are skipped'}"
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before any fixture of a browser test: skip it, or under CI fail it, with no Chromium."""
    if not _is_browser_test(item):
        return
    try:
        find_chromium()
        return
    except ChromiumNotFoundError as exc:
        reason = str(exc)
    if in_ci():
        message = f"CI={os.environ['CI']}: browser tests must run here, but {reason}"
        pytest.fail(message, pytrace=False)
    pytest.skip(reason)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's file-by-file scheduling, with CLUSTER_FILES as one unit of work."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ClusterTogether(LoadFileScheduling):
        def _split_scope(self, nodeid):
            scope = super()._split_scope(nodeid)
            return CLUSTER_FILES[0] if scope in CLUSTER_FILES else scope

    return ClusterTogether(config, log)
