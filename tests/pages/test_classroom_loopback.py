"""The Classroom's join panel warns when its link is a loopback address (AppTest's own address
is localhost), and not when ATTNVIZ_PUBLIC_URL names an address phones can reach."""

import pytest

from attnviz.ui.pages.classroom_lecturer import PUBLIC_URL_VARIABLE
from tests.helpers import run

pytestmark = pytest.mark.usefixtures("empty_rooms")

PAGE = "app_pages/Classroom.py"


@pytest.mark.parametrize(("public", "warned"), [(None, True), ("http://10.0.0.5:8501", False)])
def test_a_loopback_join_link_is_said(monkeypatch, public, warned):
    if public is None:
        monkeypatch.delenv(PUBLIC_URL_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(PUBLIC_URL_VARIABLE, public)
    at = run(PAGE)
    at.button(key="cls_open").click().run()
    assert not at.exception
    said = [w.value for w in at.warning if "reaches itself" in w.value]
    assert bool(said) is warned
