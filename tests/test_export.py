"""Downloads: CSV cells that a spreadsheet would run are neutralised, numbers kept exactly."""

import csv
import io

import numpy as np
import pytest

from attnviz.files.export import matrix_csv

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


def test_every_step_as_a_csv_in_one_zip():
    import zipfile

    import attnviz
    from attnviz.files.export import STEPS, all_steps_csv_zip

    example = attnviz.compute(attnviz.Settings(text="=1+1 cat =1+1", mask="causal"))
    archive = zipfile.ZipFile(io.BytesIO(all_steps_csv_zip(example)))
    assert sorted(archive.namelist()) == sorted(f"attnviz-{s}.csv" for s in (*STEPS, "mask"))
    rows = read_back(archive.read("attnviz-attention.csv").decode())
    assert [r[0] for r in rows[1:]] == ["'=1+1 (1)", "cat", "'=1+1 (2)"]  # labels, made safe
    A = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    np.testing.assert_array_equal(A, example.result.attention)
    W = read_back(archive.read("attnviz-W_Q.csv").decode())
    assert len(W) == 1 + example.result.d_model and len(W[0]) == 1 + example.result.d_k


def test_json_is_refused_past_its_limit_and_npz_holds_every_number():
    import attnviz
    from attnviz.files.export import all_steps_json, all_steps_npz, step_numbers
    from attnviz.limits import MAX_JSON_NUMBERS

    big = attnviz.compute(attnviz.Settings(generated=True, n=160, d_model=160, d_k=160, d_v=160))
    assert step_numbers(big) > MAX_JSON_NUMBERS
    with pytest.raises(ValueError, match="too many for JSON"):
        all_steps_json(big, {})
    steps = np.load(io.BytesIO(all_steps_npz(big)))
    np.testing.assert_array_equal(steps["attention"], big.result.attention)
