"""Every lesson page runs for each sidebar case and says in words what to notice (with the
default settings: tests/test_frame.py, which opens every page)."""

import pytest

from tests.helpers import LESSONS, SIDEBAR_CASES, run

CASES = {name: widgets for name, widgets in SIDEBAR_CASES.items() if name != "default"}


@pytest.mark.parametrize("widgets", CASES.values(), ids=list(CASES))
@pytest.mark.parametrize("page", LESSONS, ids=lambda page: page.split("_", 1)[1][:-3])
def test_runs_and_says_what_to_notice(page, widgets):
    at = run(page, **widgets)  # run() asserts that no exception reached the page
    assert not at.error, [e.value for e in at.error]
    assert at.info, "a lesson says in words what to notice"
