"""A chart's words (attnviz/charts/words.py): its text alternative says what its numbers are."""

import re

import numpy as np
import pytest

import attnviz
from attnviz.charts import matrix_heatmap
from attnviz.charts.line_charts import variance_chart
from attnviz.charts.words import (
    MAX_ROWS_DESCRIBED,
    TOP_ENTRIES,
    figure_name,
    figure_text,
    matrix_text,
)
from attnviz.lessons import scaling

ENTRY = re.compile(r"(-?\d+\.\d+(?:e-?\d+)?) on '([^']*)'")


def entries(line):
    return [(float(v), label) for v, label in ENTRY.findall(line)]


@pytest.mark.parametrize("seed", range(5))
def test_each_row_names_its_largest_weights_in_order(seed):
    r = attnviz.self_attention(*_example(seed))
    labels = [f"tok{i}" for i in range(r.n)]
    text = matrix_text(
        r.attention,
        labels,
        labels,
        title="A",
        row_title="query",
        col_title="key",
        kind="probability",
    )
    rows = text.splitlines()[2:]
    assert len(rows) == r.n
    for i, line in enumerate(rows):
        assert line.startswith(f"query 'tok{i}': ")
        expected = np.argsort(-r.attention[i], kind="stable")[:TOP_ENTRIES]
        assert [label for _, label in entries(line)] == [labels[j] for j in expected]
        assert [v for v, _ in entries(line)] == pytest.approx(r.attention[i, expected], abs=0.005)


def test_signed_rows_rank_by_size_and_masked_keys_are_left_out():
    M = np.array([[0.5, -3.0, 1.0, 2.0]])
    mask = np.array([[True, True, True, False]])
    text = matrix_text(
        M,
        ["q"],
        list("abcd"),
        title="S",
        row_title="query",
        col_title="key",
        mask=mask,
        kind="signed",
    )
    assert entries(text.splitlines()[-1]) == [(-3.0, "b"), (1.0, "c"), (0.5, "a")]


def test_long_matrices_describe_a_bounded_number_of_rows():
    n = MAX_ROWS_DESCRIBED + 5
    text = matrix_text(
        np.eye(n),
        [str(i) for i in range(n)],
        [str(i) for i in range(n)],
        title="I",
        row_title="row",
        col_title="column",
        kind="signed",
    )
    assert text.splitlines()[-1].startswith("… and 5 more rows")


def test_a_heatmaps_figure_text_reads_its_cells_and_escaped_labels_as_typed():
    A = np.array([[0.2, 0.8], [0.6, 0.4]])
    fig = matrix_heatmap(A, ["<b>x</b>", "y"], ["k0", "k1"], title="A", family="A")
    text = figure_text(fig)
    assert "query '<b>x</b>': 0.80 on 'k1', 0.20 on 'k0'" in text
    assert figure_name(fig) == "A (heatmap chart)."


def test_a_line_charts_text_gives_each_lines_ends_from_its_numbers():
    var = scaling.dot_product_variance(d_ks=(1, 4, 16), n_samples=200, seed=0)
    fig = variance_chart(var)
    text = figure_text(fig)
    for trace in fig.data:
        if trace.y is None or trace.mode == "markers":
            continue
        assert f"from {float(trace.y[0]):.2f}" in text and f"to {float(trace.y[-1]):.2f}" in text


def _example(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((5, 6))
    return (X, *attnviz.projection_weights(6, 3, 3, seed=seed))
