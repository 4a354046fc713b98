"""The real model's grid of heads in a browser: a click on a head opens it step by step."""

import pytest

from tools.browser import error_count, wait_for_app

pytestmark = pytest.mark.browser


def test_a_click_on_a_head_in_the_grid_opens_it_and_moves_the_radios(page, server):
    page.goto(f"{server}/Real_model")
    page.wait_for_selector(".st-key-model_grid .js-plotly-plot", timeout=180_000)
    wait_for_app(page, timeout=180_000)
    plot = page.locator(".st-key-model_grid .js-plotly-plot")
    plot.scroll_into_view_if_needed()
    x, y = plot.evaluate(
        """gd => {  // the marker of layer 2, head 5 (customdata [2, 5])
            const t = gd._fullData.find(d => d.name === "heads");
            const k = t.customdata.findIndex(c => c[0] === 2 && c[1] === 5);
            const L = gd._fullLayout, box = gd.getBoundingClientRect();
            return [box.left + L._size.l + L.xaxis.l2p(t.x[k]),
                    box.top + L._size.t + L.yaxis.l2p(t.y[k])];
        }"""
    )
    page.mouse.click(x, y)
    # the header is made from the radios' values: they followed the click
    page.get_by_role("heading", name="3. Layer 2, head 5, step by step").wait_for(timeout=60_000)
    wait_for_app(page)
    assert error_count(page) == 0
