"""Counting where a head's rows attend, and reading hand-edited weight tables."""

import numpy as np
import pandas as pd
import pytest

from attnviz import AttentionInputError, causal_mask, self_attention
from attnviz.lessons.hand_built_heads import read_weight_table
from attnviz.lessons.head_rules import (
    RULES,
    disagreement,
    rule_count,
    rule_counts,
    rule_targets,
    tied_rows,
    top_keys,
)

SHIFT = np.eye(5, k=-1)  # row i attends to i - 1 (row 0 to nothing)


def test_top_keys_takes_the_largest_weight_and_marks_empty_rows():
    A = np.array([[0.2, 0.5, 0.3], [0.0, 0.0, 0.0], [0.4, 0.4, 0.2]])
    np.testing.assert_array_equal(top_keys(A), [1, -1, 0])  # a tie goes to the first key


@pytest.mark.parametrize(
    ("A", "expected"),
    [
        (SHIFT, {"previous": (4, 4), "same": (0, 5), "first": (1, 5)}),
        (np.eye(5), {"previous": (0, 4), "same": (5, 5), "first": (1, 5)}),
        (np.tile([1.0, 0, 0, 0, 0], (5, 1)), {"previous": (1, 4), "same": (1, 5), "first": (5, 5)}),
    ],
)
def test_rule_counts_count_rows_by_rule(A, expected):
    counts = rule_counts(A)
    assert set(counts) == set(RULES)
    assert {rule: (c.hits, c.rows) for rule, c in counts.items()} == expected
    assert [rule for rule, c in counts.items() if c.all] == [
        rule for rule, (hits, rows) in expected.items() if hits == rows
    ]


def test_one_token_has_no_previous_row():
    c = rule_count(np.ones((1, 1)), "previous")
    assert (c.hits, c.rows, c.all) == (0, 0, False)
    assert rule_count(np.ones((1, 1)), "same").all


def test_rule_targets_and_unknown_rule():
    rows, keys = rule_targets("previous", 4)
    np.testing.assert_array_equal(rows, [1, 2, 3])
    np.testing.assert_array_equal(keys, [0, 1, 2])
    with pytest.raises(AttentionInputError, match="rule must be one of"):
        rule_targets("next", 4)


def test_counts_follow_a_real_causal_head():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 4))
    r = self_attention(
        X, np.zeros((4, 2)), rng.standard_normal((4, 2)), np.eye(4), mask=causal_mask(6)
    )
    # W_Q = 0: every allowed key scores 0, so row i spreads 1/(i+1) over keys 0..i and the
    # first allowed key wins the tie: every row's top key is the first token
    assert rule_count(r.attention, "first").all


def test_disagreement_finds_the_row_where_heads_differ_most():
    previous = SHIFT.copy()
    previous[0, 0] = 1.0  # row 0 has no previous token: it attends to itself
    A = np.stack([np.eye(5), previous, np.tile(np.eye(5)[0], (5, 1))])  # same, previous, first
    tops, n_distinct, row = disagreement(A)
    np.testing.assert_array_equal(tops[0], [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(tops[1], [0, 0, 1, 2, 3])
    np.testing.assert_array_equal(tops[2], [0, 0, 0, 0, 0])
    np.testing.assert_array_equal(n_distinct, [1, 2, 3, 3, 3])
    assert row == 2  # rows 2 to 4 tie on 3 different keys and on decided (one-hot) heads
    A[2, 2] = [0.4, 0.3, 0.3, 0, 0]  # head 2 hesitates on row 2: row 3 is the clearer example
    assert disagreement(A)[2] == 3


def test_read_weight_table_accepts_numbers_and_number_text():
    table = pd.DataFrame([[1.0, -2.5], [0.0, 3.0]], columns=["c0", "c1"])
    np.testing.assert_array_equal(read_weight_table(table, (2, 2), "W_Q"), [[1, -2.5], [0, 3]])
    np.testing.assert_array_equal(read_weight_table([["1", " -2 "]], (1, 2), "W"), [[1, -2]])


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([[1.0, None]], "W_K has an empty cell at row 0, column 1"),
        ([[1.0, np.nan]], "W_K has an empty cell at row 0, column 1"),
        ([["  ", 1.0]], "W_K has an empty cell at row 0, column 0"),
        ([[1.0, "abc"]], "W_K has 'abc' at row 0, column 1, which is not a finite number"),
        ([["nan", 1.0]], "'nan' at row 0, column 0, which is not a finite number"),
        ([[np.inf, 1.0]], "inf at row 0, column 0, which is not a finite number"),
        ([[True, 1.0]], "True at row 0, column 0"),
        ([[1.0, 2.0], [3.0, 4.0]], r"W_K must have shape \(1, 2\).*got \(2, 2\)"),
        ([[1.0]], r"must have shape \(1, 2\)"),
        ([1.0, 2.0], r"must have shape \(1, 2\)"),
    ],
)
def test_read_weight_table_names_the_first_bad_cell(values, message):
    with pytest.raises(AttentionInputError, match=message):
        read_weight_table(values, (1, 2), "W_K")


def test_tied_rows_are_counted_so_a_count_can_say_so():
    A = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0.2, 0.4, 0.4]])
    assert tied_rows(A) == 2  # rows 1 and 3 share their largest weight
    assert tied_rows(np.zeros((2, 2))) == 0  # a row that sees no key has no largest weight
