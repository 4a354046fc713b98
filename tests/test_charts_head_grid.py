"""The grid of heads and the memory chart: pure Plotly figures, tested without Streamlit."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from attnviz.charts.head_grid import MAX_CELLS_WITH_LABELS, head_grid
from attnviz.charts.tiled_memory import format_bytes, memory_chart
from attnviz.tiled import attention_memory
from tests.helpers import assert_drawn, decode

LABELS = ["the (1)", "<b>cat</b>", "%{z}", "the (2)"]
ESCAPED = ["the (1)", "&lt;b&gt;cat&lt;/b&gt;", "%{z}", "the (2)"]


def attentions(h, n, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((h, n, n))
    e = np.exp(logits)
    return e / e.sum(axis=2, keepdims=True)


def axis(fig, kind, k):
    """Layout of panel k's x or y axis (xaxis, xaxis2, ...)."""
    return fig.layout[f"{kind}axis{k + 1 if k else ''}"]


def roundtrip(fig):
    """The figure as Streamlit sends it: its JSON, read back."""
    return json.loads(fig.to_json())


def z_of(trace):
    z = trace["z"]
    return decode(z).astype(float) if isinstance(z, dict) else np.array(z, dtype=float)


def test_every_head_is_one_heatmap_holding_its_matrix():
    A = attentions(3, 4)
    fig = head_grid(A, LABELS, LABELS)
    assert isinstance(fig, go.Figure)
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    spec = roundtrip(fig)
    for k in range(3):
        assert_drawn(z_of(spec["data"][k]), A[k])
        assert spec["data"][k]["coloraxis"] == "coloraxis"
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1


def test_row_zero_on_top_one_row_per_token_labels_escaped():
    fig = head_grid(attentions(2, 4), LABELS, LABELS)
    for k in range(2):
        y, x = axis(fig, "y", k), axis(fig, "x", k)
        assert y.autorange == "reversed"
        assert list(y.tickvals) == [0, 1, 2, 3]  # "the" twice: still four rows
        assert list(y.ticktext) == ESCAPED and list(x.ticktext) == ESCAPED
        assert list(fig.data[k].y) == [0, 1, 2, 3]
    assert axis(fig, "y", 0).showticklabels and not axis(fig, "y", 1).showticklabels


def test_labels_reach_the_hover_only_as_escaped_customdata():
    fig = head_grid(attentions(2, 4), LABELS, LABELS)
    for k, trace in enumerate(fig.data):
        assert trace.hovertemplate == (
            f"head {k}<br>query: %{{customdata[0]}}<br>key: %{{customdata[1]}}<br>"
            "A_ij = %{z:.6g}<extra></extra>"
        )
        assert trace.customdata[1][2][0] == "&lt;b&gt;cat&lt;/b&gt; (row 1)"
        assert trace.customdata[2][3][1] == "the (2) (column 3)"


def test_large_matrices_hover_with_indices():
    n = int(np.sqrt(MAX_CELLS_WITH_LABELS)) + 1
    labels = [f"t{i}" for i in range(n)]
    fig = head_grid(attentions(1, n), labels, labels)
    assert fig.data[0].customdata is None
    assert "query row %{y}" in fig.data[0].hovertemplate
    assert fig.data[0].text is None  # no numbers printed on so many cells


def test_small_matrices_print_their_weights():
    A = attentions(1, 3)
    fig = head_grid(A, LABELS[:3], LABELS[:3])
    assert fig.data[0].text[2][1] == f"{A[0, 2, 1]:.2f}"


def test_grid_layout_and_titles():
    fig = head_grid(
        attentions(5, 2),
        ["a", "b"],
        ["a", "b"],
        titles=[f"<i>h{k}</i>" for k in range(5)],
        columns=2,
    )
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [f"&lt;i&gt;h{k}&lt;/i&gt;" for k in range(5)]
    # 2 panels per row: head 2 starts the second grid row, below head 0, left-aligned with it
    assert axis(fig, "x", 2).domain == axis(fig, "x", 0).domain
    assert axis(fig, "y", 2).domain[1] < axis(fig, "y", 0).domain[0]
    assert axis(fig, "y", 2).showticklabels and not axis(fig, "y", 3).showticklabels
    default = head_grid(attentions(2, 2), ["a", "b"], ["a", "b"])
    assert [a.text for a in default.layout.annotations] == ["head 0", "head 1"]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((np.ones((2, 3)), ["a"] * 2, ["a"] * 3), {}, "heads, n, m"),
        ((np.ones((0, 2, 2)), ["a", "b"], ["a", "b"]), {}, "at least one head"),
        ((np.ones((1, 2, 2)), ["a"], ["a", "b"]), {}, "labels must match"),
        ((np.ones((2, 2, 2)), ["a", "b"], ["a", "b"]), {"titles": ["x"]}, "one title per head"),
    ],
)
def test_head_grid_rejects_mismatched_input(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        head_grid(*args, **kwargs)


@pytest.mark.parametrize(
    ("n_bytes", "text"),
    [
        (0, "0 B"),
        (288, "288 B"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (2**29, "512 MiB"),
        (2**40, "1 TiB"),
        (2**52, "4.1e+03 TiB"),
    ],
)
def test_format_bytes(n_bytes, text):
    assert format_bytes(n_bytes) == text


def memory(ns, b):
    figures = [attention_memory(n, b) for n in ns]
    return [f.full for f in figures], [f.tiled for f in figures]


def test_memory_chart_draws_both_lines_on_log_axes_and_marks_n():
    ns = [1, 2, 4, 6, 8, 1024, 8192]
    full, tiled = memory(ns, 4)
    fig = memory_chart(ns, full, tiled, current_n=6, block_size=4)
    by_meta = {t.meta: t for t in fig.data}
    np.testing.assert_array_equal(by_meta["full"].y, full)
    np.testing.assert_array_equal(by_meta["tiled"].y, tiled)
    np.testing.assert_array_equal(by_meta["full"].x, ns)
    assert "b = 4" in by_meta["tiled"].name
    current = by_meta["current"]
    assert list(current.x) == [6, 6]
    assert list(current.y) == [6 * 6 * 8, 6 * 4 * 8]
    assert list(current.text) == ["288 B", "192 B"]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.shapes[0].x0 == 6  # the dotted line at the current n
    ticks = list(fig.layout.yaxis.tickvals)
    assert ticks[0] <= min(tiled) and ticks[-1] >= max(full)
    assert list(fig.layout.yaxis.ticktext) == [format_bytes(t) for t in ticks]


def test_memory_chart_needs_the_current_n_and_increasing_ns():
    full, tiled = memory([1, 2, 4], 2)
    with pytest.raises(ValueError, match="current_n=3"):
        memory_chart([1, 2, 4], full, tiled, current_n=3, block_size=2)
    with pytest.raises(ValueError, match="increasing"):
        memory_chart([1, 4, 2], full, tiled, current_n=2, block_size=2)
    with pytest.raises(ValueError, match="one length"):
        memory_chart([1, 2], full, tiled, current_n=2, block_size=2)


@pytest.mark.parametrize(("n", "h", "columns"), [(6, 8, 4), (6, 2, 2), (12, 8, 3), (20, 8, 2)])
def test_fewer_panels_per_row_as_sentences_grow(n, h, columns):
    labels = [f"t{i}" for i in range(n)]
    fig = head_grid(attentions(h, n), labels, labels)
    lefts = {round(axis(fig, "x", k).domain[0], 6) for k in range(h)}
    assert len(lefts) == columns


def test_long_sentences_label_every_kth_token_but_keep_every_row():
    labels = [f"<t{i}>" for i in range(50)]
    fig = head_grid(attentions(1, 50), labels, labels)
    y = axis(fig, "y", 0)
    assert list(y.tickvals) == list(range(0, 50, 3))  # ceil(50 / 24) = 3
    assert list(y.ticktext) == [f"&lt;t{i}&gt;" for i in range(0, 50, 3)]
    assert list(fig.data[0].y) == list(range(50))
    assert fig.data[0].z.shape == (50, 50)


def test_very_long_sentences_are_drawn_as_block_means():
    from attnviz.charts.matrix import MAX_DRAWN, block_mean, blocks

    n = 2 * MAX_DRAWN + 1
    A = attentions(2, n)
    fig = head_grid(A, [f"t{i}" for i in range(n)], [f"t{i}" for i in range(n)])
    spans = blocks(n)
    assert fig.data[0].z.shape == (len(spans), len(spans))
    np.testing.assert_allclose(fig.data[1].z, block_mean(A[1], spans, spans), rtol=1e-6)
