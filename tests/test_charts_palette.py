"""Colours that work without colour vision (attnviz/charts/finish.py) and the link's palette."""

import numpy as np

from attnviz.charts import matrix_heatmap
from attnviz.charts.finish import COLOUR_BLIND, PALETTES, STANDARD, recolour
from attnviz.charts.line_charts import SCALED_COLOUR, UNSCALED_COLOUR, variance_chart
from attnviz.charts.style import MASKED_COLOUR
from attnviz.lessons import scaling
from attnviz.links.shared import PALETTE_LINK, read_palette


def colours(spec):
    """Every colour string anywhere in a figure's dict."""
    found = []

    def walk(value):
        if isinstance(value, str) and (value.startswith("#") or value.startswith("rgb")):
            found.append(value.lower())
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(spec)
    return found


def test_the_colour_blind_palette_has_no_red_green_pair_left():
    fig = variance_chart(scaling.dot_product_variance(d_ks=(1, 4), n_samples=100))
    before = colours(fig.to_dict())
    assert SCALED_COLOUR in before and UNSCALED_COLOUR in before  # green and red
    after = colours(recolour(fig, COLOUR_BLIND))
    assert SCALED_COLOUR not in after and UNSCALED_COLOUR not in after
    swaps = PALETTES[COLOUR_BLIND]
    assert swaps[SCALED_COLOUR] in after and swaps[UNSCALED_COLOUR] in after
    assert len(after) == len(before)  # every other colour kept, none lost


def test_masked_cells_are_drawn_darker_and_the_standard_palette_is_the_figure_itself():
    M = np.array([[0.0, -np.inf], [1.0, 2.0]])
    fig = matrix_heatmap(M, ["a", "b"], ["a", "b"], mask=np.tri(2, dtype=bool))
    assert recolour(fig, STANDARD) is fig
    after = recolour(fig, COLOUR_BLIND)
    assert MASKED_COLOUR not in colours(after)
    assert PALETTES[COLOUR_BLIND][MASKED_COLOUR] in colours(after)


def test_rgba_colours_are_swapped_with_their_opacity():
    fig = variance_chart(scaling.dot_product_variance(d_ks=(1, 4), n_samples=100))
    fig.update_traces(fillcolor="rgba(27, 120, 55, 0.2)")  # the scaled green, see-through
    after = colours(recolour(fig, COLOUR_BLIND))
    assert "rgba(0,114,178, 0.2)".replace(" ", "") in [c.replace(" ", "") for c in after]


def test_the_link_names_every_palette_and_a_bad_one_says_so():
    assert set(PALETTE_LINK.values()) == set(PALETTES)
    assert read_palette({"palette": "colourblind"}) == (COLOUR_BLIND, [])
    value, warnings = read_palette({"palette": "rainbow"})
    assert value == STANDARD and "not one of standard, colourblind" in warnings[0]
