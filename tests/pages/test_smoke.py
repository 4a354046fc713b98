"""Every lesson page runs for each sidebar case and says in words what to notice."""

import pytest

from tests.helpers import SIDEBAR_CASES, run

LESSONS = ["pages/3_Why_scale.py", "pages/4_Masks_and_temperature.py", "pages/5_Positions.py"]


@pytest.mark.parametrize("widgets", SIDEBAR_CASES.values(), ids=list(SIDEBAR_CASES))
@pytest.mark.parametrize("page", LESSONS, ids=lambda page: page.split("_", 1)[1][:-3])
def test_runs_and_says_what_to_notice(page, widgets):
    at = run(page, **widgets)
    assert not at.error and not at.exception
    assert at.info, "a lesson says in words what to notice"
