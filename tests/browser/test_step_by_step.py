"""The step-by-step page in a browser: typing, hovering and clicking cells, links, markup."""

import math
from urllib.parse import urlencode

import pytest

import attnviz
from attnviz.charts import MAX_LABEL_CHARS
from tests.helpers import assert_drawn
from tools.browser import (
    chart_data,
    error_count,
    hover_cell,
    wait_for_app,
    wait_for_rows,
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


def test_typing_tokens_changes_the_charts(page, server):
    page.goto(f"{server}/Step_by_step")
    wait_for_app(page, "A")
    assert chart_data(page, "A")["ticks"][1] == "cat"
    box = page.locator(".st-key-attnviz_text textarea")
    box.fill("red green blue green")
    box.press("Control+Enter")
    wait_for_rows(page, "A", 4)
    data = chart_data(page, "A")
    assert data["ticks"] == ["red", "green (1)", "blue", "green (2)"]
    expected = attnviz.compute(attnviz.Settings(text="red green blue green")).result.attention
    assert_drawn(data["z"], expected)
    assert "tokens=red+green+blue+green" in page.url
    home = page.locator("[data-testid=stSidebar] [data-testid=stPageLink-NavLink]").first
    assert "tokens=red+green+blue+green" in home.get_attribute("href")  # this run's settings
    assert error_count(page) == 0


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


def test_clicking_a_cell_of_K_shows_the_sum_that_makes_it(page, server):
    page.goto(f"{server}/Step_by_step")
    (x, y), hover = hover_cell(page, "K", 3, 1)
    r = attnviz.compute(attnviz.Settings()).result
    assert f"K_ic = {r.K[3, 1]:.6g}" in hover
    page.mouse.click(x, y)
    caption = "Row 3 of X times column 1 of W_K: the products add up to"
    page.wait_for_selector(f"text={caption} {r.K[3, 1]:.6g}", timeout=60_000)
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


def test_a_shared_link_reproduces_the_numbers_exactly(page, server):
    query = {
        "tokens": "to be or not to be",
        "d_model": "12",
        "d_k": "5",
        "d_v": "3",
        "seed": "42",
        "positions": "on",
        "temperature": "0.7",
        "scale": "off",
    }
    page.goto(f"{server}/Step_by_step?{urlencode(query)}")
    wait_for_app(page, "output")
    settings, warnings = attnviz.from_query(query)
    assert not warnings
    r = attnviz.compute(settings).result
    assert_drawn(chart_data(page, "A")["z"], r.attention)
    assert_drawn(chart_data(page, "output")["z"], r.output)


def test_masked_cells_show_no_number(page, server):
    page.goto(f"{server}/Step_by_step?mask=causal")
    wait_for_app(page, "A")
    z = chart_data(page, "A")["z"]
    assert all(z[i][j] == 0 for i in range(6) for j in range(i + 1, 6))
    assert not any(math.isnan(v) for row in z for v in row)
