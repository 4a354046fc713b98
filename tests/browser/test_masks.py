"""The masks page in a browser: a click on the custom mask blocks that cell."""

import math

import pytest

from tools.browser import cell_centre, chart_data, error_count, wait_for_app, wait_for_chart

pytestmark = pytest.mark.browser


def test_clicking_a_cell_of_the_custom_mask_blocks_it(page, server):
    page.goto(f"{server}/Masks_and_temperature")
    wait_for_app(page, "mask_cells")
    page.locator(".st-key-attnviz_lesson_mask label").filter(has_text="custom").click()
    # Only the custom mask's chart takes clicks: a second trace of markers, one per cell. Wait
    # for it and for its run to end; a click on the chart before it is lost.
    wait_for_chart(page, "mask_cells", "gd._fullData.length === 2")
    x, y = cell_centre(page, "mask_cells", 0, 1)
    page.mouse.click(x, y)
    wait_for_chart(page, "mask_cells", "gd._fullData[0].z[0][1] === 0")  # cell (0, 1) blocked
    wait_for_chart(page, "masked_A", "gd._fullData[0].z[0][1] === 0")
    assert chart_data(page, "masked_A")["z"][0][1] == 0
    assert math.isnan(chart_data(page, "masked_logits")["z"][0][1])  # −∞: an empty cell
    assert error_count(page) == 0
