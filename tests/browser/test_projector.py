"""Projector mode in a browser: text sizes as rendered, one step at a time, nothing to download."""

import pytest

from tools.browser import error_count, wait_for_app, wait_for_run

pytestmark = pytest.mark.browser

# Rendered font sizes (px) of a chart's cell numbers, tick labels and axis titles.
CHART_FONTS = """key => {
    const root = document.querySelector(`.st-key-${key} .js-plotly-plot`);
    const size = sel => Array.from(root.querySelectorAll(sel),
        el => parseFloat(getComputedStyle(el).fontSize));
    return {
        cells: size(".heatmaplayer text, .textpoint text, g.heatmaplayer text"),
        ticks: size(".xtick text, .ytick text"),
        titles: size(".g-xtitle text, .g-ytitle text"),
        titleColours: Array.from(root.querySelectorAll(".g-ytitle text"),
            el => getComputedStyle(el).fill),
    };
}"""


def test_projector_mode_renders_large_text_one_step_and_no_downloads(page, server, artifacts):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/Step_by_step?present=on&step=6")
    wait_for_app(page, "S_scaled")
    assert page.locator("h2", has_text="6. Scaling").count() == 1
    fonts = page.evaluate(CHART_FONTS, "S_scaled")
    assert fonts["cells"] and min(fonts["cells"]) >= 18
    assert fonts["ticks"] and min(fonts["ticks"]) >= 18
    assert fonts["titles"] and min(fonts["titles"]) >= 18
    assert all(c == "rgb(38, 39, 48)" for c in fonts["titleColours"])  # dark axis titles
    body = page.locator(
        "[data-testid=stMainBlockContainer] [data-testid=stMarkdownContainer] p"
    ).first
    assert float(body.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")) >= 20
    assert page.locator("[data-testid=stDownloadButton]").count() == 0
    assert page.locator(".st-key-A").count() == 0  # one step: not A's chart
    page.screenshot(path=str(artifacts / "projector-step-6.png"))
    page.get_by_role("button", name="Next ▶").click()
    page.wait_for_selector("h2:has-text('7. Softmax attention matrix A')")
    wait_for_run(page)
    assert "step=7" in page.url and "present=on" in page.url
    assert error_count(page) == 0


def test_without_projector_mode_the_chart_text_is_smaller(page, server):
    page.goto(f"{server}/Step_by_step")
    wait_for_app(page, "S_scaled")
    fonts = page.evaluate(CHART_FONTS, "S_scaled")
    assert fonts["cells"] and max(fonts["cells"]) < 18
    assert page.locator("[data-testid=stDownloadButton]").count() == 3
