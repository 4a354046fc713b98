"""Token lines in a browser: what Plotly draws matches A, a repeated token is two positions, a
click on a token shows only its lines, and the hover lists its largest weights."""

from urllib.parse import urlencode

import numpy as np
import pytest

import attnviz
from tests.helpers import assert_lines_drawn
from tools.browser import (
    error_count,
    show_view,
    token_centre,
    token_lines_data,
    wait_for_chart,
)

pytestmark = pytest.mark.browser

TOKENS = "the cat saw the dog"  # "the" twice: "the (1)" at row 0, "the (2)" at row 3


def assert_drawn_as(page, key, A, mask=None):
    """The lines Plotly holds are A's, and its SVG draws one segment for each; returns them."""
    data = token_lines_data(page, key)
    lines = assert_lines_drawn({"data": data["data"]}, A, mask=mask)
    assert sum(data["segments"]) == len(lines)  # drawn on the page, not only in the data
    return lines, data


def only(A, side, index):
    """A with zeros outside row ``index`` (side "query") or column ``index`` (side "key"): the
    weights whose lines show when that token is shown alone."""
    kept = np.zeros_like(A)
    if side == "query":
        kept[index] = A[index]
    else:
        kept[:, index] = A[:, index]
    return kept


def wait_for_selected(page, key, selected):
    """Wait for the lines chart to show ``selected`` (["query", i], ["key", j] or None)."""
    condition = "JSON.stringify(gd._fullLayout.meta.selected) === JSON.stringify(arg)"
    wait_for_chart(page, f"{key}_lines", condition, selected)


def test_step_page_lines_match_a_and_a_click_isolates_a_token(page, server):
    # projector mode at step 7 draws A's step alone: the page is ready in a fraction of the time
    query = {"tokens": TOKENS, "present": "on", "step": "7"}
    page.goto(f"{server}/Step_by_step?{urlencode(query)}")
    page.wait_for_selector(".st-key-A .heatmaplayer", timeout=90_000)
    show_view(page, "A", "Token lines")
    A = attnviz.compute(attnviz.Settings(text=TOKENS)).result.attention
    lines, data = assert_drawn_as(page, "A", A)
    assert data["selected"] is None and page.locator(".st-key-A .heatmaplayer").count() == 0
    # the two "the" are two positions: cat's lines go to each, with its own weight
    assert (1, 0) in lines and (1, 3) in lines
    texts = page.locator(".st-key-A_lines .textpoint").all_text_contents()
    assert texts == ["the (1)", "cat", "saw", "the (2)", "dog"] * 2

    x, y = token_centre(page, "A", "query", 3)
    page.mouse.move(x, y)
    hover = page.locator(".st-key-A_lines .hoverlayer").text_content(timeout=10_000)
    j = int(A[3].argmax())
    assert "query: the (2) (row 3)" in hover and f"{A[3, j]:.4f}" in hover

    page.mouse.click(x, y)
    wait_for_selected(page, "A", ["query", 3])
    alone, _ = assert_drawn_as(page, "A", only(A, "query", 3))
    assert alone and set(alone) == {cell for cell in lines if cell[0] == 3}
    assert page.get_by_text("Only the lines of query the (2) (row 3)").count() == 1

    page.mouse.click(*token_centre(page, "A", "query", 3))  # the same token again: all lines
    wait_for_selected(page, "A", None)
    assert set(assert_drawn_as(page, "A", A)[0]) == set(lines)

    page.mouse.click(*token_centre(page, "A", "key", 3))  # a key: the lines that reach it
    wait_for_selected(page, "A", ["key", 3])
    into, _ = assert_drawn_as(page, "A", only(A, "key", 3))
    assert into and set(into) == {cell for cell in lines if cell[1] == 3}
    page.locator(".st-key-A_all button").click()  # "Show all lines"
    wait_for_selected(page, "A", None)
    assert set(assert_drawn_as(page, "A", A)[0]) == set(lines)
    assert error_count(page) == 0
