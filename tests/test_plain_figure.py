"""A page's heatmaps skip Plotly's validation (``charts.finish.plain_spec`` / ``PlainFigure``): what
they send must be exactly what the validated ``go.Figure`` sends."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from attnviz.charts.finish import PlainFigure, plain_spec
from attnviz.charts.matrix import heatmap_spec

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


def test_a_finished_chart_is_sent_as_it_was_and_encoded_without_plotlys_cleaning(monkeypatch):
    """A heatmap figure's hover labels (customdata) are an array of strings in Plotly's dict:
    an object array that orjson cannot encode, which sent the whole figure through
    ``clean_to_json_compatible`` on every run of every phone in a room (its example's A).
    ``finished`` sends them as lists, and the traces' JSON is what it was."""
    from plotly.io import _json

    from attnviz.charts import matrix_heatmap
    from attnviz.charts.finish import finished

    fig = matrix_heatmap(RNG.random((3, 3)), ["<b>x</b>", "y & z", "2"], ["a", "b", "c"])
    expected = json.loads(pio.to_json(fig.to_dict(), validate=False))["data"]
    spec = finished(fig, False, "standard")[0]

    def no_cleaning(*args, **kwargs):
        raise AssertionError("the finished chart went through Plotly's cleaning walk")

    monkeypatch.setattr(_json, "clean_to_json_compatible", no_cleaning)
    assert json.loads(pio.to_json(spec, validate=False))["data"] == expected
