"""charts.finish.matrix_chart: a heatmap finished for a display in one pure call. What it sends
is Plotly's validated figure of ``heatmap_spec`` at the display's sizes, recoloured as
``recolour`` recolours any figure; its name and words are the matrix's own."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from attnviz.charts.finish import COLOUR_BLIND, STANDARD, Display, matrix_chart, recolour
from attnviz.charts.matrix import heatmap_spec
from attnviz.charts.style import PRESENT, SCREEN
from attnviz.charts.words import matrix_words

RNG = np.random.default_rng(1)
M = RNG.standard_normal((5, 5))
LABELS = ["<b>the</b>", "cat", "sat", "on", "the"]
TITLE = "S = QKᵀ: each query's dot product with each key, before scaling and the softmax"
OPTIONS = dict(family="S", title=TITLE, mask=np.tri(5, dtype=bool), selectable=True)
DISPLAYS = [
    Display(present, palette) for present in (False, True) for palette in (STANDARD, COLOUR_BLIND)
]


def sent(spec):
    """``spec`` as the browser gets it, its datarevision left out."""
    spec = json.loads(pio.to_json(spec, validate=False))
    spec["layout"].pop("datarevision", None)
    return spec


@pytest.mark.parametrize("display", DISPLAYS, ids=str)
@pytest.mark.parametrize("share", [1.0, 0.5])
def test_a_matrix_chart_is_the_validated_heatmap_at_the_displays_size_recoloured(display, share):
    spec, heading, name, words = matrix_chart(M, LABELS, LABELS, display, share=share, **OPTIONS)
    style = (PRESENT if display.present else SCREEN).column(share)
    fig = go.Figure(
        heatmap_spec(M, LABELS, LABELS, text_px=style.text_px, width_px=style.width_px, **OPTIONS)
    )
    fig.layout.template = None
    expected = recolour(fig, display.palette)
    assert sent(spec) == sent(expected if isinstance(expected, dict) else expected.to_dict())
    titles = dict(title=heading, row_title="query (row i)", col_title="key (column j)")
    assert heading == TITLE  # wrapped on the chart at half the width, whole in the heading
    assert (name, words) == matrix_words(
        M, LABELS, LABELS, mask=OPTIONS["mask"], kind="signed", **titles
    )


def test_a_matrix_chart_is_drawn_anew_exactly_when_its_numbers_or_its_palette_change():
    def revision(matrix, display):
        return matrix_chart(matrix, LABELS, LABELS, display, **OPTIONS)[0]["layout"]["datarevision"]

    screen = Display()
    assert revision(M, screen) == revision(M.copy(), screen)
    assert revision(M + 1e-9, screen) != revision(M, screen)
    assert revision(M, Display(False, COLOUR_BLIND)) != revision(M, screen)
