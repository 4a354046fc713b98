"""Chart builders: the figure holds the matrix, its labels, one row per token, row 0 on top."""

import itertools
import json

import numpy as np
import pytest

from attnviz.charts import (
    MAX_CELLS_WITH_TEXT,
    MAX_DRAWN,
    is_selectable,
    matrix_heatmap,
    selected_cell,
)
from attnviz.charts.matrix import block_mean, blocks, heatmap_spec
from attnviz.charts.style import FAMILIES, text_px, wrap
from tests.helpers import decode


def figure_json(fig):
    return json.loads(fig.to_json())


def test_heatmap_holds_the_matrix_with_row_zero_on_top():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((6, 6))
    labels = ["the", "cat", "sat", "on", "the", "mat"]
    spec = figure_json(matrix_heatmap(M, labels, labels, title="S"))
    trace = spec["data"][0]
    assert decode(trace["z"]).dtype == np.float32  # half the bytes of float64 on the wire
    np.testing.assert_allclose(decode(trace["z"]), M, rtol=1e-6)
    assert spec["layout"]["yaxis"]["autorange"] == "reversed"
    # one row per token, even though "the" repeats (numeric axis, labels as tick text)
    assert spec["layout"]["yaxis"]["tickvals"] == list(range(6))
    assert spec["layout"]["yaxis"]["ticktext"] == labels
    assert spec["layout"]["xaxis"]["ticktext"] == labels
    assert list(decode(trace["y"]).astype(int)) == list(range(6))


@pytest.mark.parametrize(
    ("family", "rows", "columns"),
    [
        ("S", "query (row i)", "key (column j)"),
        ("A", "query (row i)", "key (column j)"),
        ("X", "token (row i)", "embedding dimension"),
        ("Q", "query of token i (row i)", "d_k dimension c"),
        ("K", "key of token j (row j)", "d_k dimension c"),
        ("V", "value of token j (row j)", "d_v dimension c"),
        (None, "row i", "column j"),  # nothing said: no "query" on the rows of K, V or X
    ],
)
def test_axes_name_what_rows_and_columns_are(family, rows, columns):
    layout = figure_json(matrix_heatmap(np.eye(3), list("abc"), list("abc"), family=family))[
        "layout"
    ]
    assert layout["yaxis"]["title"]["text"] == rows
    assert layout["xaxis"]["title"]["text"] == columns


def test_each_family_has_its_own_title_colour():
    colours = {
        family: figure_json(
            matrix_heatmap(np.eye(2), ["a", "b"], ["a", "b"], title="t", family=family)
        )["layout"]["title"]["font"]["color"]
        for family in FAMILIES
    }
    assert len(set(colours.values())) == len(FAMILIES)


def test_masked_cells_are_grey_with_a_legend_and_no_number():
    A = np.array([[1.0, 0.0], [0.4, 0.6]])
    mask = np.array([[True, False], [True, True]])
    fig = figure_json(matrix_heatmap(A, ["a", "b"], ["a", "b"], kind="probability", mask=mask))
    heat, grey, legend = fig["data"]
    assert heat["text"][0][1] == "" and heat["text"][1][0] == "0.40"  # no "0.00" on it
    assert np.isnan(decode(heat["z"])[0, 1])
    assert decode(grey["z"])[0, 1] == 1 and np.isnan(decode(grey["z"])[0, 0])
    assert legend["name"].startswith("masked") and legend["showlegend"]
    assert heat["customdata"][0][1][2] == "0 (masked)"  # the hover still tells the value


def test_a_shared_value_range_sets_the_colour_scale():
    S = np.array([[4.0, -2.0], [1.0, 0.5]])
    own = figure_json(matrix_heatmap(S / 2, ["a", "b"], ["a", "b"]))["data"][0]
    shared = figure_json(matrix_heatmap(S / 2, ["a", "b"], ["a", "b"], value_range=4.0))["data"][0]
    assert own["zmax"] == 2.0 and (shared["zmin"], shared["zmax"]) == (-4.0, 4.0)


@pytest.mark.parametrize("size", [12, 20])
def test_text_size_reaches_cells_ticks_and_axis_titles(size):
    fig = figure_json(matrix_heatmap(np.eye(3), list("abc"), list("abc"), text_px=size))
    assert fig["data"][0]["textfont"]["size"] == size
    assert fig["layout"]["yaxis"]["tickfont"]["size"] == size
    assert fig["layout"]["yaxis"]["title"]["font"]["size"] >= size
    assert fig["layout"]["yaxis"]["title"]["font"]["color"] == "#262730"


def test_tokens_that_look_like_markup_are_escaped_everywhere():
    labels = ["<b>x</b>", "<img src=x onerror=alert(1)>", "%{z}"]
    spec = figure_json(matrix_heatmap(np.ones((3, 3)), labels, labels, selectable=True))
    ticks = spec["layout"]["yaxis"]["ticktext"]
    assert ticks[0] == "&lt;b&gt;x&lt;/b&gt;"
    assert "<" not in "".join(ticks)
    for trace in spec["data"]:
        text = json.dumps(trace.get("customdata", []))
        assert "<b>" not in text and "<img" not in text
        # the token never becomes part of a hover template, where %{z} would be substituted
        assert "x</b>" not in trace.get("hovertemplate", "")
        assert "%{z}" not in trace.get("hovertemplate", "").replace("%{z:", "")


def test_masked_cells_are_blank_and_marked():
    M = np.array([[0.5, -np.inf], [0.1, 0.2]])
    trace = figure_json(matrix_heatmap(M, ["a", "b"], ["a", "b"]))["data"][0]
    z = decode(trace["z"]).astype(float)
    assert np.isnan(z[0, 1]) and z[0, 0] == 0.5
    assert trace["text"][0][1] == "−∞"
    assert trace["text"][0][0] == "0.50"


def test_colour_scales():
    signed = figure_json(matrix_heatmap(np.array([[-2.0, 1.0]]), ["a"], ["a", "b"]))["data"][0]
    assert signed["zmid"] == 0 and signed["zmin"] == -2 and signed["zmax"] == 2
    prob = figure_json(
        matrix_heatmap(np.array([[0.3, 0.7]]), ["a"], ["a", "b"], kind="probability")
    )
    assert prob["data"][0]["zmin"] == 0 and prob["data"][0]["zmax"] == 1


def test_values_printed_only_on_small_matrices():
    side = int(MAX_CELLS_WITH_TEXT**0.5) + 1
    big = matrix_heatmap(np.zeros((side, side)), ["t"] * side, ["t"] * side)
    small = matrix_heatmap(np.zeros((3, 3)), list("abc"), list("abc"))
    assert big.data[0].text is None
    assert small.data[0].text is not None
    # The numbers are printed when the widest fits a cell's width in pixels at its size
    one = np.full((2, 1), -0.25)  # "-0.25": the widest text of the matrix
    for size, width in ((12, 820), (20, 1120), (20, 560)):
        fig = matrix_heatmap(one, ["a", "b"], ["t"], text_px=size, width_px=width)
        layout = fig.layout
        plot = width - layout.margin.l - layout.margin.r
        widest = text_px("-0.25", size)
        n_fit = int((plot) // (widest + 2))  # the most columns whose cells hold the number
        for n, printed in ((n_fit, True), (n_fit + 1, False)):
            M = np.full((2, n), -0.25)
            fig = matrix_heatmap(M, ["a", "b"], ["t"] * n, text_px=size, width_px=width)
            assert (fig.data[0].text is not None) == printed, (size, width, n)


def test_a_long_title_wraps_to_the_chart_width():
    title = "A after the softmax: each row renormalised over the keys it may see"
    fig = matrix_heatmap(np.zeros((2, 2)), ["a", "b"], ["a", "b"], title=title, width_px=300)
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) > 1 and " ".join(lines) == title
    assert all(text_px(line, fig.layout.title.font.size) <= 290 for line in lines)
    assert wrap("a b", 12, 1000) == "a b"


def test_selectable_adds_one_marker_per_cell_carrying_the_hover():
    fig = matrix_heatmap(np.arange(6.0).reshape(2, 3), ["a", "b"], ["x", "y", "z"], selectable=True)
    heat, cells = fig.data
    assert heat.hoverinfo == "skip"
    assert len(cells.x) == 6
    points = sorted(zip(cells.y, cells.x, strict=True))
    assert points == [(i, j) for i in range(2) for j in range(3)]
    # the marker at (1, 2) describes row "b", column "z" and value M[1, 2] = 5
    k = list(zip(cells.y, cells.x, strict=True)).index((1, 2))
    assert cells.customdata[k][0].startswith("b") and cells.customdata[k][1].startswith("z")
    assert cells.customdata[k][2] == "5"


def test_labels_must_match_the_matrix():
    with pytest.raises(ValueError, match="labels must match"):
        matrix_heatmap(np.zeros((2, 3)), ["a", "b"], ["a", "b"])


def test_long_labels_are_cut_on_the_axis_but_whole_in_the_hover():
    long = "supercalifragilisticexpialidocious"
    spec = figure_json(matrix_heatmap(np.zeros((1, 1)), [long], [long]))
    assert spec["layout"]["yaxis"]["ticktext"][0].endswith("…")
    assert long in json.dumps(spec["data"][0]["customdata"])


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"points": [{"x": 2, "y": 1}]}, (1, 2)),
        ({"points": [{"x": 0.0, "y": 3.0}]}, (3, 0)),
        ({"points": []}, None),
        (None, None),
        ({}, None),
    ],
)
def test_selected_cell(selection, expected):
    assert selected_cell(selection) == expected


def test_large_matrices_are_drawn_as_block_means():
    n = MAX_DRAWN * 2 + 5
    rng = np.random.default_rng(3)
    M = rng.standard_normal((n, 7))
    labels = [f"w{i}" for i in range(n)]
    fig = matrix_heatmap(M, labels, list("abcdefg"), title="X", selectable=True)
    z = np.asarray(fig.data[0].z, dtype=float)
    spans = blocks(n)
    assert z.shape == (len(spans), 7) and len(spans) <= MAX_DRAWN
    for k, (start, stop) in enumerate(spans):  # each drawn row is the mean of its block of rows
        np.testing.assert_allclose(z[k], M[start:stop].mean(axis=0), rtol=1e-6)
    assert sum(stop - start for start, stop in spans) == n
    assert "mean of a 3×1 block" in fig.layout.title.text
    assert fig.layout.yaxis.ticktext[1] == "3–5"
    assert "%{y}" in fig.data[0].hovertemplate and "mean" in fig.data[0].hovertemplate
    assert len(fig.data) == 1  # too large to click: the inspector's selectors pick the cell
    assert not is_selectable(M.shape)


def test_block_means_leave_masked_cells_out():
    M = np.array([[1.0, -np.inf, 3.0, -np.inf], [-np.inf, -np.inf, 5.0, 7.0]])
    means = block_mean(M, [(0, 2)], [(0, 2), (2, 4)])
    np.testing.assert_array_equal(means, [[1.0, 5.0]])
    all_masked = block_mean(np.full((2, 2), -np.inf), [(0, 2)], [(0, 2)])
    assert np.isneginf(all_masked).all()


def test_blocks_cover_the_range_once():
    for n in (1, 5, MAX_DRAWN, MAX_DRAWN + 1, 512):
        spans = blocks(n)
        assert spans[0][0] == 0 and spans[-1][1] == n and len(spans) <= MAX_DRAWN
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))


def test_large_matrices_hover_through_tick_labels_not_per_cell_data():
    labels = [f"<i>w{i}</i>" for i in range(40)]
    fig = matrix_heatmap(np.zeros((40, 40)), labels, labels, family="S")
    assert fig.data[0].customdata is None  # 1,600 cells: no per-cell strings on the wire
    assert fig.data[0].hovertemplate.startswith("query: %{y}")
    assert fig.layout.yaxis.ticktext[0] == "&lt;i&gt;w0&lt;/i&gt;"


# What Plotly's automargin grew the margins to in Chromium (Streamlit theme, before the margins
# were set by the builder): the builder's margins must hold at least this much, or the browser
# draws the chart twice (automargin redraws the whole figure when a margin grows).
MEASURED_IN_CHROMIUM = [
    # (rows, cols, row labels, col labels, kind, scale, need left, need top)
    (6, 6, ["the", "cat", "sat", "on", "the", "mat"], None, "signed", 3, 80, 90),
    (8, 4, [str(i) for i in range(8)], [str(i) for i in range(4)], "signed", 1, 66, 90),
    (6, 6, ["x" * 20, "W" + "w" * 15, "ab", "c", "d", "e"], None, "signed", 1, 199, 90),
    (32, 32, [f"word{i:02d}xx" for i in range(32)], None, "signed", 1e6, 109, 104),
    (512, 512, [f"t{i + 1}" for i in range(512)], None, "signed", 1234.5, 87, 90),
    (6, 6, ["the", "cat", "sat", "on", "the", "mat"], None, "probability", 1, 80, 90),
]


@pytest.mark.parametrize("case", MEASURED_IN_CHROMIUM)
def test_margins_hold_the_labels_so_plotly_draws_once(case):
    rows, cols, row_labels, col_labels, kind, scale, need_left, need_top = case
    M = np.random.default_rng(0).standard_normal((rows, cols)) * scale
    if kind == "probability":
        M = np.abs(M) / np.abs(M).sum(axis=1, keepdims=True)
    layout = figure_json(
        matrix_heatmap(M, row_labels, col_labels or row_labels, title="S", kind=kind)
    )["layout"]
    assert layout["margin"]["l"] >= need_left
    assert layout["margin"]["t"] >= need_top
    assert layout["margin"]["l"] <= need_left + 60  # room for the labels, not a blank band


def test_margins_follow_the_labels_and_the_colour_bar():
    M = np.ones((8, 8))
    short = figure_json(matrix_heatmap(M, list("abcdefgh"), list("abcdefgh"), title="M"))
    long = [f"a long token {i}" for i in range(8)]
    wide = figure_json(matrix_heatmap(M, long, long, title="M"))
    assert wide["layout"]["margin"]["l"] > short["layout"]["margin"]["l"]
    # 8 columns: labels turned by 45 degrees, longer ones need more room above the plot
    assert wide["layout"]["margin"]["t"] > short["layout"]["margin"]["t"]
    big = figure_json(matrix_heatmap(M * 123456.0, list("abcdefgh"), list("abcdefgh")))
    tiny = figure_json(matrix_heatmap(M * 0.0001, list("abcdefgh"), list("abcdefgh")))
    assert big["layout"]["margin"]["r"] > short["layout"]["margin"]["r"]
    assert tiny["layout"]["margin"]["r"] > short["layout"]["margin"]["r"]
    # the colour bar sits at the plot's edge plus a fixed gap: its room does not scale with width
    assert short["data"][0]["colorbar"]["x"] == 1
    # untitled charts keep less room on top than titled ones
    assert big["layout"]["margin"]["t"] < short["layout"]["margin"]["t"]


def test_margins_measure_labels_as_typed_not_escaped():
    M = np.ones((2, 2))
    escaped = figure_json(matrix_heatmap(M, ["<b>", "&"], ["a", "b"]))
    assert escaped["layout"]["yaxis"]["ticktext"] == ["&lt;b&gt;", "&amp;"]
    same_width = figure_json(matrix_heatmap(M, ["abc", "d"], ["a", "b"]))
    assert escaped["layout"]["margin"]["l"] == same_width["layout"]["margin"]["l"]


@pytest.mark.parametrize("rotate, expected", [(None, 0), (True, -45), (False, 0)])
def test_column_labels_turn_when_asked_or_past_six_columns(rotate, expected):
    # Six long labels stay level by default; a chart in a narrow page column asks to turn
    # them, and gets the room above the plot that turned labels need.
    labels = [f"token {i}" for i in range(6)]
    fig = figure_json(matrix_heatmap(np.ones((6, 6)), labels, labels, rotate_labels=rotate))
    assert fig["layout"]["xaxis"].get("tickangle", 0) == expected
    level = figure_json(matrix_heatmap(np.ones((6, 6)), labels, labels, rotate_labels=False))
    if expected:
        assert fig["layout"]["margin"]["t"] > level["layout"]["margin"]["t"]
    many = [f"t{i}" for i in range(7)]
    assert (
        figure_json(matrix_heatmap(np.ones((7, 7)), many, many))["layout"]["xaxis"]["tickangle"]
        == -45
    )


def test_a_zero_one_matrix_is_drawn_on_two_colours_and_printed_0_or_1():
    mask = np.tri(3)
    spec = heatmap_spec(mask, list("abc"), list("abc"), kind="binary")
    cells = spec["data"][0]
    colours = {colour for _, colour in cells["colorscale"]}
    assert len(colours) == 2 and (cells["zmin"], cells["zmax"]) == (0.0, 1.0)
    assert cells["colorbar"]["ticktext"] == ["0", "1"]
    assert cells["text"] == [["1", "0", "0"], ["1", "1", "0"], ["1", "1", "1"]]


def test_column_labels_too_close_to_read_are_thinned_not_smeared():
    from attnviz.charts.matrix_layout import thinned

    labels = [str(k) for k in range(64)]
    kept = thinned(labels, 17.0, 20, rotated=True)  # 64 columns of a projector's 1120 px
    shown = [k for k, label in enumerate(kept) if label]
    assert shown[:3] == [0, 2, 4] and all(kept[k] == labels[k] for k in shown)
    assert thinned(labels[:6], 100.0, 20, rotated=False) == labels[:6]  # room: all of them
    spec = heatmap_spec(np.zeros((2, 96)), ["a", "b"], labels + labels[:32], text_px=20,
                        width_px=560)  # fmt: skip
    ticks = spec["layout"]["xaxis"]["ticktext"]
    assert 0 < sum(1 for t in ticks if t) < 96 // 4
