"""The sketch's charts: what they hold, one row per key (key 0 on top), tap targets only on
the keys the query may see and at least 44 px a row, tokens escaped."""

import numpy as np

from attnviz.charts.sketch import (
    ROW_PX,
    TAP_MARKER_PX,
    distance_figure,
    overlay_figure,
    sketch_figure,
    sketches_figure,
)
from attnviz.limits import SKETCH_LEVELS

LABELS = ["<b>x</b>", "cat", "mat"]


def test_the_sketch_holds_the_levels_and_taps_only_the_allowed_keys():
    fig = sketch_figure(LABELS, [2, 0, 0], [1.0, 0.0, 0.0], [True, True, False])
    bars, taps = fig.data
    assert list(bars.x) == [2, 0, 0] and list(bars.y) == [0, 1, 2]
    assert set(taps.y) == {0, 1} and set(taps.x) == set(range(SKETCH_LEVELS + 1))
    assert fig.layout.yaxis.autorange == "reversed"
    assert TAP_MARKER_PX + 2 * fig.layout.hoverdistance >= 44  # a tap target, both ways
    ticks = fig.layout.yaxis.ticktext
    assert ticks[0].startswith("&lt;b&gt;x&lt;/b&gt;") and "<b>1.00</b>" in ticks[0]
    assert "masked" in ticks[2]
    plot_height = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert plot_height / len(LABELS) >= 44  # a thumb's target
    assert ROW_PX >= 44
    locked = sketch_figure(LABELS, [2, 0, 0], [1.0, 0.0, 0.0], [True] * 3, taps=False)
    assert len(locked.data) == 1


def test_the_overlay_holds_the_mean_spread_and_truth():
    fig = overlay_figure(LABELS, [0.2, 0.5, 0.3], [0.1, 0.6, 0.3], spread=[0.05, 0.1, 0.0])
    assert np.allclose(fig.data[0].x, [0.2, 0.5, 0.3])
    assert np.allclose(fig.data[0].error_x.array, [0.05, 0.1, 0.0])
    assert np.allclose(fig.data[1].x, [0.1, 0.6, 0.3]) and fig.data[1].name == "the true row"


def test_the_distances_and_the_small_multiples():
    fig = distance_figure([1, 0, 0, 0, 0, 0, 0, 0, 0, 2], [0.05, 0.95, 1.0])
    assert list(fig.data[0].y) == [1, 0, 0, 0, 0, 0, 0, 0, 0, 2]
    assert list(fig.data[1].x) == [0.05, 0.95, 1.0]
    fig = sketches_figure(LABELS, [[1, 0, 0], [0.5, 0.5, 0]], ["Sketch A", "Sketch B"])
    assert [list(d.x) for d in fig.data] == [[1, 0, 0], [0.5, 0.5, 0]]
    assert [a.text for a in fig.layout.annotations] == ["Sketch A", "Sketch B"]


def test_the_sketch_axis_names_the_bars_length_not_a_height():
    """I7: the bars lie along the x axis: a tap sets a bar's length."""
    for taps in (True, False):
        fig = sketch_figure(["a", "b"], (1, 2), (1 / 3, 2 / 3), (True, True), taps=taps)
        title = fig.layout.xaxis.title.text
        assert "length" in title and "height" not in title
