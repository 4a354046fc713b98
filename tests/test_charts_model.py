"""The grid of every head: one thumbnail per (layer, head), row 0 on top, labels as typed."""

import html
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from attnviz.charts.model import (
    GRID_LABEL_CHARS,
    GRID_MAX_TICKS,
    grid_selected_head,
    head_grid,
)
from tests.conftest import decode

LABELS = ["[CLS]", "<b>x</b>", "%{z}", "the (1)", "the (2)", "[SEP]"]


def attention(n_layers=3, n_heads=4, n=6, seed=0):  # n = len(LABELS)
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n), size=(n_layers, n_heads, n))  # float64, rows sum to 1


def sent(fig):
    """The figure as the browser gets it (JSON, numpy arrays as typed buffers)."""
    return json.loads(plotly.io.to_json(fig, validate=False))


def test_one_thumbnail_per_head_holding_its_matrix_in_float32():
    A = attention()
    spec = sent(head_grid(A, LABELS))
    heatmaps = [t for t in spec["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == 12 and len(spec["data"]) == 24
    for layer in range(3):
        for head in range(4):
            trace = heatmaps[layer * 4 + head]
            z = decode(trace["z"])
            assert trace["z"]["dtype"] == "f4"  # float32 on the wire: half of float64
            np.testing.assert_allclose(z, A[layer, head], rtol=1e-6)
            assert "text" not in trace and "texttemplate" not in trace  # no per-cell text
            assert trace["hoverinfo"] == "skip" and trace["coloraxis"] == "coloraxis"


def axis(layout, letter, k):
    """Subplot k's (0-based) x or y axis in a layout dict: "xaxis", "xaxis2", ..."""
    return layout[f"{letter}axis{k + 1 if k else ''}"]


def test_rows_top_down_and_layers_top_down():
    spec = sent(head_grid(attention(), LABELS))
    layout = spec["layout"]
    n = len(LABELS)
    for k, trace in enumerate(t for t in spec["data"] if t["type"] == "heatmap"):
        assert (trace["xaxis"], trace["yaxis"]) == (
            f"x{k + 1 if k else ''}",
            f"y{k + 1 if k else ''}",
        )
        x, y = axis(layout, "x", k), axis(layout, "y", k)
        assert y["range"] == [n - 0.5, -0.5]  # reversed: row 0 (query 0) at the top
        assert x["range"] == [-0.5, n - 0.5]
        layer, head = divmod(k, 4)
        if layer:  # each layer's row sits below the one before
            assert y["domain"][1] < axis(layout, "y", k - 4)["domain"][0]
        if head:  # each head sits right of the one before
            assert x["domain"][0] > axis(layout, "x", k - 1)["domain"][1]
    words = [a["text"] for a in layout["annotations"]]
    assert words[:4] == ["head 0", "head 1", "head 2", "head 3"]
    assert [w for w in words if w.startswith("layer")] == ["layer 0", "layer 1", "layer 2"]
    layer_y = [a["y"] for a in layout["annotations"] if a["text"].startswith("layer")]
    assert layer_y == sorted(layer_y, reverse=True)  # layer 0 on top


def test_labels_are_escaped_and_only_on_the_first_column():
    spec = sent(head_grid(attention(), LABELS))
    layout = spec["layout"]
    expected = [
        html.escape(label[: GRID_LABEL_CHARS - 1] + "…" if len(label) > GRID_LABEL_CHARS else label)
        for label in LABELS
    ]
    for k in range(12):
        y = axis(layout, "y", k)
        if k % 4 == 0:
            assert y["showticklabels"] is True
            assert y["ticktext"] == expected
            assert y["tickvals"] == list(range(len(LABELS)))
        else:
            assert y["showticklabels"] is False and "ticktext" not in y
    assert "&lt;b&gt;x&lt;/" in expected[1]


def test_long_sentences_get_no_tick_labels():
    n = GRID_MAX_TICKS + 1
    spec = sent(head_grid(attention(1, 2, n), [f"w{i}" for i in range(n)]))
    assert all(
        value.get("showticklabels") is False
        for key, value in spec["layout"].items()
        if key.startswith("yaxis")
    )


def test_markers_carry_the_head_and_escaped_hover():
    hover = [[[f"<i>{layer}{head}</i>", "[SEP] 0.9"] for head in range(4)] for layer in range(3)]
    spec = sent(head_grid(attention(), LABELS, head_hover=hover))
    markers = [t for t in spec["data"] if t["type"] == "scatter"]
    assert len(markers) == 12
    for k, marker in enumerate(markers):
        layer, head = divmod(k, 4)
        assert marker["customdata"] == [[layer, head]]
        assert marker["x"] == marker["y"] == [2.5]  # the thumbnail's centre
        assert marker["xaxis"] == spec["data"][k]["xaxis"]  # on its own thumbnail
        assert marker["hovertext"] == [
            f"layer {layer}, head {head}: click to open<br>&lt;i&gt;{layer}{head}&lt;/i&gt;"
            "<br>[SEP] 0.9"
        ]
    assert spec["layout"]["hoverdistance"] == -1
    assert spec["layout"]["clickmode"] == "event+select"


def test_selected_head_is_outlined():
    assert sent(head_grid(attention(), LABELS))["layout"].get("shapes", []) == []
    [shape] = sent(head_grid(attention(), LABELS, selected=(2, 1)))["layout"]["shapes"]
    assert shape["xref"] == "x10 domain" and shape["yref"] == "y10 domain"  # 2 * 4 + 1 + 1
    [shape] = sent(head_grid(attention(), LABELS, selected=(0, 0)))["layout"]["shapes"]
    assert shape["xref"] == "x domain"
    with pytest.raises(ValueError, match="not in the 3x4 grid"):
        head_grid(attention(), LABELS, selected=(3, 0))


def test_the_unvalidated_figure_is_valid_plotly():
    fig = head_grid(attention(6, 12, 5), LABELS[:5], selected=(5, 11), title="<all> heads")
    checked = go.Figure(fig.to_dict())  # raises on any property Plotly does not know
    assert len(checked.data) == 144
    assert checked.layout.title.text == "&lt;all&gt; heads"
    assert checked.layout.coloraxis.cmin == 0 and checked.layout.coloraxis.cmax == 1


@pytest.mark.parametrize(
    ("A", "labels", "message"),
    [
        (np.ones((2, 3, 3)), ["a"] * 3, "n_layers, n_heads, n, n"),
        (np.ones((1, 1, 3, 2)), ["a"] * 3, "n_layers, n_heads, n, n"),
        (np.ones((1, 1, 3, 3)), ["a"] * 2, "2 labels for 3 word pieces"),
    ],
)
def test_bad_input_is_explained(A, labels, message):
    with pytest.raises(ValueError, match=message):
        head_grid(A, labels)


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"points": [{"curve_number": 20, "customdata": [1, 8], "x": 2.5, "y": 2.5}]}, (1, 8)),
        ({"points": [{"customdata": [0, 0]}, {"customdata": [3, 3]}]}, (0, 0)),
        ({"points": [{"curve_number": 3, "x": 1, "y": 2}]}, None),  # not a marker
        ({"points": []}, None),
        ({}, None),
        (None, None),
    ],
)
def test_grid_selected_head(selection, expected):
    assert grid_selected_head(selection) == expected
