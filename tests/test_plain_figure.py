"""A page's heatmaps skip Plotly's validation (``serve.finish.plain_spec`` / ``PlainFigure``): what
they send must be exactly what the validated ``go.Figure`` sends."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from attnviz.charts.matrix import heatmap_spec
from attnviz.serve.finish import PlainFigure, plain_spec

RNG = np.random.default_rng(0)


def cases():
    for n, m in [(6, 8), (8, 4), (10, 10), (40, 40), (200, 3), (3, 130)]:
        M = RNG.standard_normal((n, m))
        rows, cols = [f"<b>t{i}</b> &" for i in range(n)], [str(j) for j in range(m)]
        yield M, rows, cols, dict(family="S", title="S & <x>")
        yield M, rows, cols, dict(kind="probability", selectable=True, family="A")
        if n == m:
            eye = np.eye(n, dtype=bool)
            yield M, rows, cols, dict(mask=np.tri(n, dtype=bool), selectable=True, outline=eye)
        masked = M.copy()
        masked[0, 0] = -np.inf
        yield masked, rows, cols, dict(value_range=3.0, text_px=20, rotate_labels=True)


def validated(spec):
    """What the page sent before: Plotly's validated figure, its template removed."""
    fig = go.Figure(spec)
    fig.layout.template = None
    return fig.to_dict()


@pytest.mark.parametrize("case", list(cases()), ids=lambda c: f"{c[0].shape}-{sorted(c[3])}")
def test_plain_spec_sends_what_the_validated_figure_sends(case):
    M, rows, cols, options = case
    expected = pio.to_json(validated(heatmap_spec(M, rows, cols, **options)), validate=False)
    figure = PlainFigure(plain_spec(heatmap_spec(M, rows, cols, **options)))
    assert json.loads(pio.to_json(figure.to_dict(), validate=False)) == json.loads(expected)
