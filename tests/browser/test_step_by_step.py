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
    wait_for_chart,
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
    # a masked cell is drawn grey with no number: its weight is 0 by construction, which the
    # legend says, not a small weight in the colour of 0.00
    assert all(math.isnan(z[i][j]) for i in range(6) for j in range(i + 1, 6))
    assert not any(math.isnan(z[i][j]) for i in range(6) for j in range(i + 1))
    cells = page.locator(".st-key-A .js-plotly-plot").evaluate(
        "gd => Array.from(gd.querySelectorAll('.heatmaplayer text'), t => t.textContent)"
    )
    assert len([c for c in cells if c]) == 21  # numbers only on the 21 cells a query may see
    assert "masked" in page.locator(".st-key-A .legend").text_content()


def test_a_typed_entry_of_x_outlines_what_it_reached_and_undo_takes_it_back(page, server):
    """Token 0, dimension 0 of X set to 2: its cell in X, row 0 of K and every row of A are
    outlined in the browser (one rectangle per row run), the link holds the edit; undo."""
    page.goto(f"{server}/Step_by_step")
    wait_for_app(page, "A")
    box = page.locator(".st-key-attnviz_edit_value input")
    box.fill("2")
    box.press("Enter")
    wait_for_chart(page, "A", "(gd.layout.shapes || []).length === 2")
    paths = {
        key: page.locator(f".st-key-{key} .js-plotly-plot").evaluate(
            "gd => gd.layout.shapes[1].path"
        )
        for key in ("X", "K", "A")
    }
    assert paths["X"] == "M-0.5,-0.5H0.5V0.5H-0.5Z"  # the one cell typed
    assert paths["K"] == "M-0.5,-0.5H3.5V0.5H-0.5Z"  # row 0 of K, its 4 columns
    assert paths["A"].count("M") == 6  # every row of A: each sees key 0
    assert "edit=0%2C0%2C2" in page.url or "edit=0,0,2" in page.url
    assert page.locator(".st-key-A .shapelayer path").count() == 2  # drawn: white, then dark
    page.locator(".st-key-attnviz_edit_undo_banner button").click()
    wait_for_chart(page, "A", "!(gd.layout.shapes || []).length")
    assert "edit=" not in page.url
    assert error_count(page) == 0
