"""Every page opens by its URL (its first visit on a server) with no serious or critical
accessibility problem (axe-core) and a name on every chart, and the sidebar's menu links keep
the settings."""

from urllib.parse import urlencode

import numpy as np
import pytest

import attnviz
from attnviz.files.own_numbers import EXERCISE, NAMES
from attnviz.links.course import PAGES
from tests.helpers import PAGE_PATHS, assert_drawn
from tools.browser import (
    accessibility_problems,
    chart_data,
    error_count,
    streamlit_server,
    wait_for_app,
)

pytestmark = pytest.mark.browser

# What shows that a page has drawn: a heatmap, except on the quiz (no chart until an answer),
# the geometry page and the exercises (boxes to type in).
READY = {
    "Predict_then_reveal": "[data-testid=stMain] [data-testid=stRadio]",
    "Attention_as_geometry": ".js-plotly-plot .barlayer",  # arrows and bars, no heatmap
    "Work_it_out": "[data-testid=stMain] [data-testid=stTextInput]",
    "Lecture_deck": "[data-testid=stMain] [data-testid=stCode]",  # a table and its link
    "Classroom": ".st-key-cls_open button",  # no room yet: the button that opens one
}
HEATMAP = ".js-plotly-plot .heatmaplayer"


@pytest.fixture(scope="module")
def fresh_server():
    """A server of this file's own: each page below is opened first here by its deep link.

    One server for all the pages, not one each: starting a server and importing the app took
    about 5 of the 11 s of each page's test. Home, the first, is the server's first request."""
    with streamlit_server() as url:
        yield url


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_opens_by_its_url_as_its_first_visit(page, artifacts, fresh_server, path):
    query = {"tokens": "a b c a", "d_k": "3", "seed": "5", "mask": "causal"}
    # this page's first visit on the server, in a session of its own
    page.goto(f"{fresh_server}/{path}?{urlencode(query)}")
    page.wait_for_selector(READY.get(path, HEATMAP), timeout=90_000)
    wait_for_app(page)
    assert error_count(page) == 0
    page.screenshot(path=artifacts / f"page-{path or 'home'}.png")
    assert accessibility_problems(page) == []  # axe-core's serious and critical, unnamed charts
    key = "A" if path else "home_A"
    if page.locator(f".st-key-{key}").count():
        settings, _ = attnviz.from_query(query)
        expected = attnviz.compute(settings).result.attention
        mask = np.tri(4, dtype=bool)  # the causal mask: masked cells are drawn without a number
        if path == "Your_own_numbers":  # its own matrices, with the sidebar's mask
            mats = (np.array(EXERCISE[name], float) for name in NAMES)
            mask = np.tri(3, dtype=bool)
            expected = attnviz.self_attention(*mats, mask=mask).attention
        assert_drawn(chart_data(page, key)["z"], expected, mask=mask)


def test_the_sidebar_menu_names_home_and_its_links_keep_the_settings(page, server):
    query = {"tokens": "a b c a", "d_k": "3", "seed": "5"}
    page.goto(f"{server}/Step_by_step?{urlencode(query)}")
    wait_for_app(page, "A")
    sidebar = page.locator("[data-testid=stSidebar]")
    assert sidebar.locator("[data-testid=stSidebarNav]").count() == 0  # Streamlit's own menu
    links = sidebar.locator("[data-testid=stPageLink-NavLink]")
    labels = [text.strip() for text in links.all_inner_texts()]
    assert labels == [page.label for page in PAGES]  # the course's order
    for href in links.evaluate_all("els => els.map(e => e.href)"):
        assert "d_k=3" in href and "tokens=a+b+c+a" in href
    links.filter(has_text="Home").click()
    page.wait_for_url(lambda url: url.startswith(f"{server}/?"), timeout=60_000)
    wait_for_app(page, "home_A")
    settings, _ = attnviz.from_query(query)
    assert_drawn(chart_data(page, "home_A")["z"], attnviz.compute(settings).result.attention)
    assert error_count(page) == 0
