"""A chart kept finished for every session (``ui.matrix.draw_kept_chart``) sends what the same
chart drawn anew (``draw_chart``) sends, in every style and palette, and is made once."""

import json

import numpy as np
import plotly.io as pio
import pytest

from attnviz import lessons
from attnviz.charts.head_grid import head_grid
from attnviz.charts.line_charts import variance_chart
from attnviz.charts.palette import PALETTES
from attnviz.ui.matrix import _finished, _finished_chart
from tests.helpers import forget_kept

MADE = []


def variance_figure(d_k, seed):
    MADE.append((d_k, seed))
    var = lessons.dot_product_variance((1, 4, d_k), n_samples=200, seed=seed)
    return variance_chart(var, mark_d_k=d_k)


def sent(figure):
    """The JSON Streamlit sends for ``figure`` (a kept chart's dict, or a figure)."""
    spec = figure if isinstance(figure, dict) else figure.to_dict()
    return json.loads(pio.to_json(spec, validate=False))


@pytest.mark.parametrize("colours", sorted(PALETTES))
@pytest.mark.parametrize("present", [False, True])
@pytest.mark.parametrize("share", [1.0, 0.5])
def test_a_kept_chart_sends_what_a_new_one_sends(colours, present, share):
    forget_kept()
    MADE.clear()
    kept = _finished_chart(variance_figure, (16, 3), share, present, colours, None)
    again = _finished_chart(variance_figure, (16, 3), share, present, colours, None)
    new = _finished(variance_figure(16, 3), share, present, colours)
    assert again is kept and MADE == [(16, 3), (16, 3)]  # once kept, once for the comparison
    assert sent(kept[0]) == sent(new[0])
    assert kept[1:] == new[1:]  # heading, accessible name and text alternative


def test_each_setting_is_a_chart_of_its_own():
    forget_kept()
    a = _finished_chart(variance_figure, (16, 3), 1.0, False, "standard", None)
    b = _finished_chart(variance_figure, (16, 4), 1.0, False, "standard", None)
    assert sent(a[0]) != sent(b[0])


def grid_figure(labels, attention):
    MADE.append(attention.shape)
    return head_grid(attention, labels, labels)


def test_arrays_are_kept_by_their_digest():
    forget_kept()
    MADE.clear()
    A = np.full((2, 3, 3), 1 / 3)
    kept = _finished_chart(grid_figure, (("a", "b", "c"),), 1.0, False, "standard", None, (A,))
    same = _finished_chart(
        grid_figure, (("a", "b", "c"),), 1.0, False, "standard", None, (A.copy(),)
    )
    B = A.copy()
    B[0, 0] = (1, 0, 0)
    other = _finished_chart(grid_figure, (("a", "b", "c"),), 1.0, False, "standard", None, (B,))
    assert same is kept and len(MADE) == 2
    assert sent(other[0]) == sent(
        _finished(grid_figure(("a", "b", "c"), B), 1.0, False, "standard")[0]
    )
