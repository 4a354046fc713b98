"""Downloads: CSV cells that a spreadsheet would run are neutralised, numbers kept exactly."""

import csv
import io

import numpy as np
import pytest

from attnviz.export import matrix_csv

ATTACKS = ['=HYPERLINK("http://example.invalid","x")', "@SUM(1+1)", "+1", "-2", "\tx", "\rx"]


def read_back(text):
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("label", ATTACKS)
def test_formula_labels_are_neutralised_in_header_and_first_column(label):
    rows = read_back(matrix_csv(np.array([[1.0, -2.5]]), [label], ["ok", label]))
    assert rows[0][2] == "'" + label  # the header: a column label
    assert rows[1][0] == "'" + label  # the first column: a row label
    assert rows[0][1] == "ok"


def test_numbers_are_unchanged_negative_ones_included():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 3)) * 1e3
    M[0, 0] = -1 / 3
    rows = read_back(matrix_csv(M, ["a", "b", "c", "d"], ["x", "y", "z"]))
    values = np.array([[float(v) for v in row[1:]] for row in rows[1:]])
    np.testing.assert_array_equal(values, M)  # every digit read back
    assert rows[1][1].startswith("-")  # a number keeps its sign: no apostrophe
