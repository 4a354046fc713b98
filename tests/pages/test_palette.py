"""The colour-blind-safe palette in AppTest: from the link, kept in the links, by the toggle."""

import json

from attnviz.charts.finish import COLOUR_BLIND, PALETTES
from attnviz.charts.line_charts import SCALED_COLOUR, UNSCALED_COLOUR
from tests.helpers import run, run_more, widget_by_key

WHY = "app_pages/Why_scale.py"
SAFE = PALETTES[COLOUR_BLIND]


def line_colours(at):
    return {
        (trace.get("line") or {}).get("color", "").lower()
        for chart in at.get("plotly_chart")
        for trace in json.loads(chart.proto.spec)["data"]
    }


def test_palette_in_the_link_redraws_the_scaled_and_unscaled_lines_and_stays_in_the_links():
    at = run(WHY, {"palette": "colourblind"})
    drawn = line_colours(at)
    assert SAFE[SCALED_COLOUR] in drawn and SAFE[UNSCALED_COLOUR] in drawn
    assert SCALED_COLOUR not in drawn and UNSCALED_COLOUR not in drawn
    assert widget_by_key(at, "attnviz_palette").value is True
    assert at.query_params["palette"] == "colourblind"
    assert not at.warning


def test_the_toggle_switches_the_palette_back_and_forth():
    at = run(WHY)
    assert SCALED_COLOUR in line_colours(at)
    at = run_more(at, palette=True)
    assert SAFE[SCALED_COLOUR] in line_colours(at) and at.query_params["palette"] == "colourblind"
    at = run_more(at, palette=False)
    assert SCALED_COLOUR in line_colours(at) and "palette" not in at.query_params


def test_a_bad_palette_in_the_link_is_said_and_the_standard_colours_used():
    at = run(WHY, {"palette": "rainbow"})
    assert SCALED_COLOUR in line_colours(at)
    assert any("palette=rainbow" in w.value for w in at.warning)
