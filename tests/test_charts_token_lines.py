"""Token lines: every line drawn is a weight of A, at its position, with its opacity and width."""

import html
import json

import numpy as np
import pytest

from attnviz.charts.style import MAX_LABEL_CHARS, PRESENT_TEXT_PX, TEXT_PX
from attnviz.charts.token_lines import (
    LEVELS,
    LINE_MAX_PX,
    STEP,
    lines_note,
    selected_token,
    token_lines,
)
from attnviz.limits import MAX_LINE_TOKENS, TOP_LINES_PER_QUERY
from tests.helpers import assert_lines_drawn, decode, drawn_lines
from tests.reference import softmax

EPS = 1e-9


def spec_of(fig):
    return json.loads(fig.to_json())


def markers(spec, name):
    (trace,) = [t for t in spec["data"] if t.get("name") == name]
    return trace


def softmax_rows(rng, n, sharpness=2.0):
    """Attention weights (n, n): the softmax of random scores."""
    return softmax(rng.standard_normal((n, n)) * sharpness)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_line_has_the_opacity_and_width_of_its_weight(seed):
    A = softmax_rows(np.random.default_rng(seed), 9)
    lines = drawn_lines(spec_of(token_lines(A, [f"t{i}" for i in range(9)])))
    for i in range(9):
        for j in range(9):
            if A[i, j] < STEP / 2 - EPS:
                assert (i, j) not in lines, f"{A[i, j]} draws no line"
            elif A[i, j] >= STEP / 2 + EPS:
                opacity, width = lines[i, j]
                assert abs(opacity - A[i, j]) <= STEP / 2 + EPS
                assert width == pytest.approx(opacity * LINE_MAX_PX)
    assert lines  # the test saw lines
    assert_lines_drawn(spec_of(token_lines(A, [f"t{i}" for i in range(9)])), A)  # the helper


def test_one_trace_per_rounded_weight_not_one_per_line():
    A = np.random.default_rng(3).uniform(size=(MAX_LINE_TOKENS, MAX_LINE_TOKENS))
    spec = spec_of(token_lines(A, [f"t{i}" for i in range(MAX_LINE_TOKENS)]))
    line_traces = [t for t in spec["data"] if t["mode"] == "lines"]
    assert len(drawn_lines(spec)) == np.count_nonzero(A >= STEP / 2)  # 16,000 lines ...
    assert len(line_traces) == LEVELS  # ... in 20 traces
    opacities = [t["opacity"] for t in line_traces]
    assert len(set(opacities)) == len(opacities)


def test_masked_cells_never_draw_a_line():
    n = 5
    A = np.full((n, n), 1 / n)  # a weight in every cell, even the masked ones
    mask = np.tril(np.ones((n, n), dtype=bool))
    lines = drawn_lines(spec_of(token_lines(A, list("abcde"), mask=mask)))
    assert set(lines) == {(i, j) for i in range(n) for j in range(i + 1)}
    note = lines_note(A, mask=mask)
    assert "The 10 masked cells draw no line." in note and "15 lines are drawn" in note


def test_a_repeated_token_is_two_positions_and_its_lines_go_to_the_right_one():
    labels = ["the (1)", "cat", "the (2)"]
    A = np.array([[0, 0, 1.0], [0.5, 0.5, 0], [1.0, 0, 0]])
    spec = spec_of(token_lines(A, labels))
    assert set(drawn_lines(spec)) == {(0, 2), (1, 0), (1, 1), (2, 0)}
    for name, x in (("queries", 0), ("keys", 1)):
        trace = markers(spec, name)
        assert list(trace["text"]) == labels  # one marker per position, in order
        assert list(decode(trace["y"]).astype(int)) == [0, 1, 2]
        assert set(decode(trace["x"]).astype(float)) == {x}
    assert spec["layout"]["yaxis"]["range"] == [2.5, -0.5]  # row 0 at the top


@pytest.mark.parametrize(("side", "index"), [("query", 2), ("key", 1)])
def test_a_selected_token_shows_only_its_lines_and_stands_out(side, index):
    A = softmax_rows(np.random.default_rng(4), 6, sharpness=0.5)  # every weight over 0.025
    assert A.min() > STEP / 2
    lines = drawn_lines(spec_of(token_lines(A, list("abcdef"))))
    assert len(lines) == 36
    only = drawn_lines(spec_of(token_lines(A, list("abcdef"), selected=(side, index))))
    expected = {(index, j) for j in range(6)} if side == "query" else {(i, index) for i in range(6)}
    assert set(only) == expected
    assert all(only[cell] == lines[cell] for cell in only)  # the same opacity and width
    spec = spec_of(token_lines(A, list("abcdef"), selected=(side, index)))
    trace = markers(spec, "queries" if side == "query" else "keys")
    sizes = decode(trace["marker"]["size"]).astype(float)
    assert sizes[index] > max(np.delete(sizes, index))
    assert trace["text"][index] == f"<b>{'abcdef'[index]}</b>"


def test_a_wrong_selection_is_refused():
    with pytest.raises(ValueError, match="selected must be"):
        token_lines(np.eye(3), list("abc"), selected=("query", 3))


def top_heavy(n, heavy, rng):
    """(n, n) rows with ``heavy`` distinct weights of at least 0.06 and the rest tiny."""
    A = np.full((n, n), 1e-4)
    for i in range(n):
        cols = rng.choice(n, size=heavy, replace=False)
        A[i, cols] = 0.06 + 0.01 * rng.permutation(heavy)
    return A / A.sum(axis=1, keepdims=True)


def test_above_the_limit_each_query_draws_exactly_its_top_k_lines():
    rng = np.random.default_rng(5)
    n = MAX_LINE_TOKENS + 2
    A = top_heavy(n, TOP_LINES_PER_QUERY + 4, rng)
    spec = spec_of(token_lines(A, [f"t{i}" for i in range(n)]))
    lines = drawn_lines(spec)
    for i in range(n):
        mine = {j for (row, j) in lines if row == i}
        assert mine == set(np.argsort(-A[i])[:TOP_LINES_PER_QUERY])
    assert spec["layout"]["meta"]["top_k"] == TOP_LINES_PER_QUERY
    held = sum(A[i, j] for i, j in lines) / n
    note = lines_note(A)
    assert f"With {n} tokens (more than {MAX_LINE_TOKENS})" in note
    assert f"only each query's {TOP_LINES_PER_QUERY} largest weights can draw a line." in note
    assert f"{n * TOP_LINES_PER_QUERY} lines are drawn, holding {held:.1%} of all" in note


def test_at_the_limit_every_weight_draws():
    rng = np.random.default_rng(6)
    A = top_heavy(MAX_LINE_TOKENS, TOP_LINES_PER_QUERY + 4, rng)
    spec = spec_of(token_lines(A, [f"t{i}" for i in range(MAX_LINE_TOKENS)]))
    assert len(drawn_lines(spec)) == MAX_LINE_TOKENS * (TOP_LINES_PER_QUERY + 4)
    assert spec["layout"]["meta"]["top_k"] is None
    assert "largest weights can draw" not in lines_note(A)


def test_the_note_counts_the_weights_too_small_to_draw():
    A = np.array([[0.97, 0.02, 0.01], [0.5, 0.3, 0.2], [0.024, 0.026, 0.95]])
    note = lines_note(A)
    assert "A weight under 0.025 draws no line: here 3 of the 9 weights." in note
    assert "6 lines are drawn." in note
    assert len(drawn_lines(spec_of(token_lines(A, list("abc"))))) == 6
    alone = lines_note(A, selected=("key", 0))
    assert "2 lines are drawn: the key's own." in alone  # 0.97 and 0.5; 0.024 draws none
    assert len(drawn_lines(spec_of(token_lines(A, list("abc"), selected=("key", 0))))) == 2


def test_labels_are_escaped_and_reach_the_hover_only_as_data():
    labels = ["<img src=x onerror=alert(1)>", "<b>x</b>", "%{y} &amp;"]
    spec = spec_of(token_lines(np.full((3, 3), 1 / 3), labels))
    for name in ("queries", "keys"):
        trace = markers(spec, name)
        cut = [label if len(label) <= MAX_LABEL_CHARS else label[:15] + "…" for label in labels]
        assert [html.unescape(t) for t in trace["text"]] == cut  # long labels are cut
        where = "row" if name == "queries" else "column"
        whole = [html.unescape(row[0]) for row in trace["customdata"]]
        assert whole == [f"{label} ({where} {t})" for t, label in enumerate(labels)]
        assert all("<" not in t for t in trace["text"])
        assert all(label not in t for t in trace["hovertemplate"] for label in labels)
        assert all("<" not in str(v) for row in trace["customdata"] for v in row)


def test_a_tokens_hover_lists_its_largest_weights_as_numbers():
    A = np.array([[0.1, 0.6, 0.3, 0.0], [0.25, 0.25, 0.25, 0.25], [0, 0, 0, 1.0], [0.4, 0, 0.6, 0]])
    spec = spec_of(token_lines(A, ["w", "x", "y", "z"]))
    query = markers(spec, "queries")
    assert query["customdata"][0] == [
        *("w (row 0)", "x (column 1)", 0.6, "y (column 2)", 0.3, "w (column 0)", 0.1)
    ]
    key = markers(spec, "keys")
    assert key["customdata"][2] == [
        *("y (column 2)", "z (row 3)", 0.6, "w (row 0)", 0.3, "x (row 1)", 0.25)
    ]
    assert "%{customdata[2]:.4f}" in query["hovertemplate"][0]


def test_a_query_that_may_see_nothing_says_so_in_its_hover():
    mask = np.array([[False, False], [True, True]])
    spec = spec_of(token_lines(np.array([[0, 0], [0.5, 0.5]]), ["a", "b"], mask=mask))
    assert "no key it may see" in markers(spec, "queries")["hovertemplate"][0]


def test_height_grows_with_n_and_projector_text_is_larger():
    def layout(n, text_px=TEXT_PX):
        A = np.full((n, n), 1 / n)
        return spec_of(token_lines(A, [f"t{i}" for i in range(n)], text_px=text_px))

    assert layout(12)["layout"]["height"] > layout(6)["layout"]["height"]
    small = markers(layout(6), "queries")["textfont"]["size"]
    large = markers(layout(6, PRESENT_TEXT_PX), "queries")["textfont"]["size"]
    assert (small, large) == (TEXT_PX, PRESENT_TEXT_PX)


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        ({"points": [{"x": 0, "y": 2, "curve_number": 5}]}, ("query", 2)),
        ({"points": [{"x": 1.0, "y": 0.0}]}, ("key", 0)),
        ({"points": [{"x": None, "y": 1}, {"x": 1, "y": 3}]}, ("key", 3)),
        ({"points": [{"x": 0, "y": 4}]}, None),  # the tokens changed: no row 4 any more
        ({"points": []}, None),
        (None, None),
    ],
)
def test_selected_token_reads_the_clicked_marker(selection, expected):
    assert selected_token(selection, 4) == expected


def test_labels_too_small_to_print_are_left_to_the_hover_and_the_note_says_so():
    def queries(n):
        A = np.full((n, n), 1 / n)
        return markers(spec_of(token_lines(A, [f"t{i}" for i in range(n)])), "queries")

    assert queries(200)["mode"] == "markers+text"
    assert queries(400)["mode"] == "markers"  # 2300 px / 400 rows: labels of 4 px
    assert queries(400)["customdata"][7][0] == "t7 (row 7)"
    assert "400 labels do not fit: hover a marker" in lines_note(np.full((400, 400), 1 / 400))
    assert "labels do not fit" not in lines_note(np.full((200, 200), 1 / 200))
