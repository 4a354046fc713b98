"""The step-by-step page in a browser: hovering and clicking a cell, markup in the SVG ticks.
(Typing, a shared link, masked cells, an edit and its undo are wiring: tests/pages/
test_step_by_step.py and tests/test_charts_matrix.py hold them.)"""

from urllib.parse import urlencode

import pytest

import attnviz
from attnviz.charts import MAX_LABEL_CHARS
from tools.browser import (
    error_count,
    hover_cell,
    wait_for_app,
)

pytestmark = pytest.mark.browser

# What markup in a token could have made: an element with an inline handler (on...=), a script.
INJECTED = """() => [
    ...Array.from(document.querySelectorAll("*"), el => Array.from(el.attributes)
        .filter(a => a.name.toLowerCase().startsWith("on"))
        .map(a => `${el.tagName} ${a.name}`)).flat(),
    ...Array.from(document.scripts).filter(s => s.text.includes("alert(")).map(s => s.text),
]"""
# Resolves once the browser has failed to load "x" as an image, as an injected
# <img src=x onerror=...> would have: by then its handler would have fired.
IMAGE_X_FAILED = """() => new Promise(done => {
    const img = new Image();
    img.onload = img.onerror = () => done(true);
    img.src = "x";
})"""


def test_hover_and_click_a_score_cell_opens_the_inspector(page, server, artifacts):
    page.goto(f"{server}/Step_by_step")
    (x, y), hover = hover_cell(page, "S", 3, 1)
    r = attnviz.compute(attnviz.Settings()).result
    assert "on (row 3)" in hover and "cat (column 1)" in hover
    assert f"{r.scores[3, 1]:.6g}" in hover
    page.mouse.click(x, y)
    page.wait_for_selector("text=Query on (row 3) and key cat (column 1)", timeout=60_000)
    page.screenshot(path=artifacts / "inspector.png")
    assert error_count(page) == 0


def test_markup_tokens_show_as_typed_and_run_nothing(page, server):
    tokens = "<img/src=x/onerror=alert(1)> <b>x</b> %{z} <script>alert(2)</script>"
    page.goto(f"{server}/Step_by_step?{urlencode({'tokens': tokens})}")
    wait_for_app(page, "A")
    ticks = page.locator(".st-key-A .ytick text").all_text_contents()
    cut = MAX_LABEL_CHARS - 1  # long labels are cut on the axis (the hover shows them whole)
    assert ticks == [t if len(t) <= MAX_LABEL_CHARS else t[:cut] + "…" for t in tokens.split()]
    assert page.locator(".st-key-A svg img, .st-key-A svg b").count() == 0
    assert page.locator("img[src=x]").count() == 0
    assert page.evaluate(INJECTED) == []
    assert page.evaluate(IMAGE_X_FAILED)
    assert page.dialogs == []
    assert error_count(page) == 0
