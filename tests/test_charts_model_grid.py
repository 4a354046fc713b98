"""The grid of every head: one tile per (layer, head), row 0 on top, labels as typed."""

import html
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from attnviz.charts.model_grid import (
    GRID_LABEL_CHARS,
    GRID_LEVELS,
    GRID_MAX_TICKS,
    grid_gap,
    grid_selected_head,
    model_grid,
    row_px,
)
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from tests.helpers import decode

LABELS = ["[CLS]", "<b>x</b>", "%{z}-and-more", "the (1)", "the (2)", "[SEP]"]  # 6: labelled


def attention(n_layers=3, n_heads=4, n=6, seed=0):  # n = len(LABELS)
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n), size=(n_layers, n_heads, n))  # float64, rows sum to 1


def sent(fig):
    """The figure as the browser gets it (JSON, numpy arrays as typed buffers)."""
    return json.loads(plotly.io.to_json(fig, validate=False))


def tiles(spec):
    """{(layer, head): matrix} cut out of the grid's heatmap, and the heatmap itself."""
    Z = decode(spec["data"][0]["z"]).astype(float)
    n, step = spec["layout"]["meta"]["n"], spec["layout"]["meta"]["step"]
    rows, cols = (Z.shape[0] + step - n) // step, (Z.shape[1] + step - n) // step
    cut = {
        (layer, head): Z[layer * step : layer * step + n, head * step : head * step + n]
        for layer in range(rows)
        for head in range(cols)
    }
    return cut, Z


def covered(layout, shape):
    """Boolean mask of the heatmap cells (of ``shape``) whose centres the white strips cover."""
    rows, cols = np.arange(shape[0])[:, None], np.arange(shape[1])[None, :]
    mask = np.zeros(shape, dtype=bool)
    for s in layout["shapes"]:
        if s.get("fillcolor") == "white":
            mask |= (s["x0"] < cols) & (cols < s["x1"]) & (s["y0"] < rows) & (rows < s["y1"])
    return mask


def test_every_head_is_a_tile_holding_its_matrix_in_one_byte_steps():
    A = attention()
    spec = sent(model_grid(A, LABELS))
    heatmap, markers = spec["data"]
    assert heatmap["type"] == "heatmap" and markers["type"] == "scatter"
    assert heatmap["z"]["dtype"] == "u1"  # one byte a weight on the wire: float32's quarter
    assert "text" not in heatmap and "texttemplate" not in heatmap  # no per-cell text
    assert heatmap["hoverinfo"] == "skip"  # colours only: the numbers are in the head's charts
    assert (heatmap["zmin"], heatmap["zmax"]) == (0, GRID_LEVELS) == (0, 255)
    colorbar = heatmap["colorbar"]  # the colour bar reads as weights, 0 to 1
    assert colorbar["ticktext"] == ["0", "0.25", "0.5", "0.75", "1"]
    assert colorbar["tickvals"] == [0, 63.75, 127.5, 191.25, 255]
    cut, Z = tiles(spec)
    gap = grid_gap(6)
    assert spec["layout"]["meta"] == {"n": 6, "gap": gap, "step": 6 + gap}
    assert Z.shape == (3 * 6 + 2 * gap, 4 * 6 + 3 * gap)
    assert len(cut) == 12
    for (layer, head), M in cut.items():  # row i of tile (l, h) is query i of that head
        np.testing.assert_array_equal(M, np.rint(A[layer, head] * 255))
        np.testing.assert_allclose(M / 255, A[layer, head], atol=0.5 / 255)
    tile = np.zeros(Z.shape, dtype=bool)
    for layer in range(3):
        for head in range(4):
            tile[
                layer * (6 + gap) : layer * (6 + gap) + 6, head * (6 + gap) : head * (6 + gap) + 6
            ] = 1
    assert (Z[~tile] == 0).all()
    np.testing.assert_array_equal(covered(spec["layout"], Z.shape), ~tile)  # gaps hidden, only


def test_weights_become_the_nearest_step():
    A = np.zeros((1, 1, 2, 2))
    A[0, 0] = [[1.0, 0.0], [0.5 + 0.4 / 255, 0.5 - 0.4 / 255]]
    Z = decode(sent(model_grid(A, ["a", "b"]))["data"][0]["z"])
    np.testing.assert_array_equal(Z, [[255, 0], [128, 127]])


def test_row_zero_and_layer_zero_on_top_heads_left_to_right():
    layout = sent(model_grid(attention(), LABELS))["layout"]
    step = layout["meta"]["step"]
    y, x = layout["yaxis"], layout["xaxis"]
    assert y["range"][0] > y["range"][1]  # reversed: small row numbers at the top
    assert x["range"][0] < x["range"][1]
    assert x["ticktext"] == ["head 0", "head 1", "head 2", "head 3"]
    assert x["tickvals"] == [h * step + 2.5 for h in range(4)] and x["side"] == "top"
    layers = [a for a in layout["annotations"] if a["text"].startswith("layer")]
    assert [a["text"] for a in layers] == ["layer 0", "layer 1", "layer 2"]
    assert [a["y"] for a in layers] == [layer * step + 2.5 for layer in range(3)]
    assert y["scaleanchor"] == "x"  # square tiles


def test_rows_take_the_pages_name_for_a_layer():
    """The chat model's page calls a layer a block: its grid says so, on the tiles and in the
    hover (review 4, I15)."""
    spec = sent(model_grid(attention(), LABELS, row_name="block"))
    names = [a["text"] for a in spec["layout"]["annotations"]]
    assert names == ["block 0", "block 1", "block 2"]
    assert spec["data"][1]["hovertext"][0] == "block 0, head 0: click to open"


def test_word_pieces_are_escaped_on_every_tile_row():
    layout = sent(model_grid(attention(), LABELS))["layout"]
    step = layout["meta"]["step"]
    cut = [
        label if len(label) <= GRID_LABEL_CHARS else label[: GRID_LABEL_CHARS - 1] + "…"
        for label in LABELS
    ]
    assert layout["yaxis"]["ticktext"] == [html.escape(label) for label in cut] * 3
    assert layout["yaxis"]["tickvals"] == [layer * step + i for layer in range(3) for i in range(6)]
    assert layout["yaxis"]["ticktext"][1:3] == ["&lt;b&gt;x&lt;/b&gt;", "%{z}-an…"]


def test_long_sentences_get_no_word_piece_labels():
    n = GRID_MAX_TICKS + 1
    layout = sent(model_grid(attention(1, 2, n), [f"w{i}" for i in range(n)]))["layout"]
    assert layout["yaxis"]["tickvals"] == [] and layout["yaxis"]["ticktext"] == []


def test_markers_carry_the_head_and_escaped_hover():
    hover = [[[f"<i>{layer}{head}</i>", "[SEP] 0.9"] for head in range(4)] for layer in range(3)]
    spec = sent(model_grid(attention(), LABELS, head_hover=hover))
    markers = spec["data"][1]
    step = spec["layout"]["meta"]["step"]
    assert markers["customdata"] == [[layer, head] for layer in range(3) for head in range(4)]
    for k, (layer, head) in enumerate(markers["customdata"]):
        assert (markers["x"][k], markers["y"][k]) == (head * step + 2.5, layer * step + 2.5)
        assert markers["hovertext"][k] == (
            f"layer {layer}, head {head}: click to open<br>&lt;i&gt;{layer}{head}&lt;/i&gt;"
            "<br>[SEP] 0.9"
        )
    assert spec["layout"]["hoverdistance"] == -1
    assert spec["layout"]["clickmode"] == "event+select"


def test_selected_head_is_outlined():
    unselected = sent(model_grid(attention(), LABELS))["layout"]["shapes"]
    assert all(s["fillcolor"] == "white" for s in unselected)  # the strips only
    layout = sent(model_grid(attention(), LABELS, selected=(2, 1)))["layout"]
    *strips, shape = layout["shapes"]  # the outline comes last: drawn over the strips
    assert strips == unselected
    assert shape["line"]["color"] == "#d62728" and "fillcolor" not in shape
    step = layout["meta"]["step"]
    assert shape["x0"] < 1 * step - 0.5 and shape["x1"] > 1 * step + 5.5  # around tile (2, 1)
    assert shape["y0"] < 2 * step - 0.5 and shape["y1"] > 2 * step + 5.5
    assert shape["x1"] - shape["x0"] < step + 1  # and no further
    with pytest.raises(ValueError, match="not in the 3x4 grid"):
        model_grid(attention(), LABELS, selected=(3, 0))


def test_the_figure_is_valid_plotly_and_stays_small():
    fig = model_grid(attention(6, 12, 5), LABELS[:5], selected=(5, 11), title="<all> heads")
    checked = go.Figure(fig.to_dict())  # raises on any property Plotly does not know
    assert len(checked.data) == 2
    assert checked.layout.title.text == "&lt;all&gt; heads"
    big = plotly.io.to_json(model_grid(attention(6, 12, 128), [f"w{i}" for i in range(128)]))
    # 72 heads of 128 pieces: 1.45 million cells, one byte each (base64: 1.94 MB). float32 sent
    # 8.7 MB, which the server built on every rerun of every session.
    assert len(big) < 2.1e6


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
        model_grid(A, labels)


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"points": [{"curve_number": 1, "customdata": [1, 8], "x": 2.5, "y": 2.5}]}, (1, 8)),
        ({"points": [{"customdata": [0, 0]}, {"customdata": [3, 3]}]}, (0, 0)),
        ({"points": [{"curve_number": 0, "x": 1, "y": 2}]}, None),  # not a marker
        ({"points": []}, None),
        ({}, None),
        (None, None),
    ],
)
def test_grid_selected_head(selection, expected):
    assert grid_selected_head(selection) == expected


@pytest.mark.parametrize("text_px", [TEXT_PX, PRESENT_TEXT_PX])
def test_layer_and_head_names_never_overlap_at_their_size(text_px):
    """30 layers of 9 heads (the chat model's): on a projector the names would overlap, so every
    other one (or fewer) is printed, layer 0 and head 0 always; on a screen all of them."""
    fig = model_grid(attention(30, 9, 5), [""] * 5, text_px=text_px)
    step = fig.layout.meta["step"]
    px = row_px(30, fig.layout.margin.t) / step  # pixels per heatmap cell
    layers = [note.y for note in fig.layout.annotations]
    heads = list(fig.layout.xaxis.tickvals)
    for named in (layers, heads):
        assert named[0] == (5 - 1) / 2  # the first tile's centre
        assert min(np.diff(named)) * px >= text_px  # room for each name's height
    if text_px == TEXT_PX:
        assert len(layers) == 30 and len(heads) == 9
    else:
        assert len(layers) < 30 and len(heads) < 9


def test_the_queries_are_named_only_where_their_rows_have_room():
    A = attention(6, 12, 6)  # MiniLM's grid with a six-piece sentence
    screen = model_grid(A, LABELS, text_px=TEXT_PX)
    projector = model_grid(A, LABELS, text_px=PRESENT_TEXT_PX)
    assert len(screen.layout.yaxis.tickvals) == 6 * 6
    assert not projector.layout.yaxis.tickvals  # 20 px names in rows of about 10 px


def test_a_turned_grid_names_its_many_columns_so_that_their_names_fit():
    """The chat page's projector grid (review 5): a head a row, 30 blocks a column, each
    column's name at 20 px given room in the plot's width (not "block 0" over "block 1")."""
    from attnviz.charts.model_grid import NAME_GAP_PX, PLOT_WIDTH_PX

    A = np.full((9, 30, 3, 3), 1 / 3)  # (heads, blocks, n, n): the chat model's axes swapped
    fig = model_grid(A, ["a", "b", "c"], text_px=20, row_name="head", col_name="block")
    named = fig.layout.xaxis.ticktext
    assert named[0] == "block 0" and all(t.startswith("block ") for t in named)
    width = 0.6 * len("block 29") * 20 + NAME_GAP_PX
    stride = int(named[1].split()[1])  # every k-th block named, k tiles apart
    assert named == tuple(f"block {b}" for b in range(0, 30, stride))
    assert PLOT_WIDTH_PX / 30 * stride >= width  # at the narrowest plot, a name's room
    assert [a.text for a in fig.layout.annotations][:2] == ["head 0", "head 1"]
    assert fig.layout.margin.l >= 0.6 * len("head 8") * 20  # the rows' names are not cut
