"""Head statistics: what each head attends to, against hand-made heads and a loop reference."""

import math

import numpy as np
import pytest

from attnviz.model.head_stats import (
    PATTERNS,
    describe,
    head_stats,
    ranked,
    strongest_pattern,
)

TOKENS = ["[CLS]", "a", "b", "a", "[SEP]"]  # "a" repeats: queries 1 and 3


def one_hot_rows(n, targets):
    """An (n, n) attention matrix whose row i puts all its weight on key targets[i]."""
    A = np.zeros((n, n))
    A[np.arange(n), targets] = 1.0
    return A


def hand_heads():
    """(1, 5, 5, 5) attention: heads that each do one thing exactly."""
    n = len(TOKENS)
    heads = [
        one_hot_rows(n, [0] * n),  # 0: everything on [CLS]
        one_hot_rows(n, [n - 1] * n),  # 1: everything on [SEP]
        one_hot_rows(n, [0, 0, 1, 2, 3]),  # 2: the previous piece ([CLS] looks at itself)
        np.eye(n),  # 3: itself
        np.full((n, n), 1 / n),  # 4: uniform
    ]
    return np.stack(heads)[None]


def reference(A, tokens):
    """The statistics of one (n, n) head, written out with loops."""
    n = len(tokens)
    cls = sum(A[i, j] for i in range(n) for j in range(n) if tokens[j] == "[CLS]") / n
    sep = sum(A[i, j] for i in range(n) for j in range(n) if tokens[j] == "[SEP]") / n
    previous = sum(A[i, i - 1] for i in range(1, n)) / (n - 1)
    itself = sum(A[i, i] for i in range(n)) / n
    nxt = sum(A[i, i + 1] for i in range(n - 1)) / (n - 1)
    repeats = [i for i in range(n) if tokens.count(tokens[i]) > 1]
    same = (
        sum(A[i, j] for i in repeats for j in range(n) if j != i and tokens[j] == tokens[i])
        / len(repeats)
        if repeats
        else math.nan
    )
    entropy = sum(-sum(a * math.log(a) for a in A[i] if a > 0) / math.log(n) for i in range(n)) / n
    return dict(
        cls=cls, sep=sep, previous=previous, itself=itself, next=nxt, same=same, entropy=entropy
    )


def test_hand_made_heads_score_what_they_do():
    stats = head_stats(hand_heads(), TOKENS)
    assert stats.shape == (1, 5)
    np.testing.assert_allclose(stats.cls[0], [1, 0, 2 / 5, 1 / 5, 1 / 5])
    np.testing.assert_allclose(stats.sep[0], [0, 1, 0, 1 / 5, 1 / 5])
    np.testing.assert_allclose(stats.previous[0], [1 / 4, 0, 1, 0, 1 / 5])
    np.testing.assert_allclose(stats.itself[0], [1 / 5, 1 / 5, 1 / 5, 1, 1 / 5])
    np.testing.assert_allclose(stats.next[0], [0, 1 / 4, 0, 0, 1 / 5])
    # queries 1 and 3 ("a") put on the other "a": head 2 row 3 looks at "b"; uniform gives 1/5
    np.testing.assert_allclose(stats.same[0], [0, 0, 0, 0, 1 / 5])
    np.testing.assert_allclose(stats.entropy[0], [0, 0, 0, 0, 1], atol=1e-12)
    assert [strongest_pattern(stats, 0, h)[0] for h in range(4)] == [
        "cls",
        "sep",
        "previous",
        "itself",
    ]


def test_same_piece_head():
    n = len(TOKENS)
    A = one_hot_rows(n, [0, 3, 2, 1, 4])  # each "a" looks at the other "a"
    stats = head_stats(A[None, None], TOKENS)
    assert stats.same[0, 0] == 1.0
    assert strongest_pattern(stats, 0, 0) == ("same", 1.0)


@pytest.mark.parametrize("seed", range(3))
def test_matches_a_loop_reference_on_random_heads(seed):
    rng = np.random.default_rng(seed)
    tokens = ["[CLS]", "the", "cat", "the", "##s", "cat", "[SEP]"]
    A = rng.dirichlet(np.ones(len(tokens)), size=(2, 3, len(tokens)))  # (2, 3, n, n)
    stats = head_stats(A, tokens)
    for layer in range(2):
        for head in range(3):
            expected = reference(A[layer, head], tokens)
            got = stats.head(layer, head)
            assert got.keys() == expected.keys()
            for name, value in expected.items():
                assert got[name] == pytest.approx(value, abs=1e-12), (layer, head, name)


def test_no_repeated_piece_gives_nan_and_says_so():
    tokens = ["[CLS]", "x", "y", "[SEP]"]
    A = np.full((1, 2, 4, 4), 0.25)
    stats = head_stats(A, tokens)
    assert np.isnan(stats.same).all()
    assert "No word piece occurs twice" in " ".join(describe(stats))
    assert math.isnan(stats.head(0, 0)["same"])


def test_stats_are_read_only():
    stats = head_stats(hand_heads(), TOKENS)
    with pytest.raises(ValueError, match="read-only"):
        stats.cls[0, 0] = 1


def test_ranked_is_largest_first_and_skips_nan():
    values = np.array([[0.1, np.nan, 0.7], [0.5, 0.9, 0.2]])
    assert ranked(values) == [(1, 1, 0.9), (0, 2, 0.7), (1, 0, 0.5), (1, 2, 0.2), (0, 0, 0.1)]


def test_describe_counts_and_names_the_heads():
    stats = head_stats(hand_heads(), TOKENS)
    lines = describe(stats, threshold=0.5, top=3)
    assert len(lines) == len(PATTERNS) + 1  # one per pattern, and the broad heads
    assert lines[0] == "1 head puts more than 50% of its weight on [CLS]: layer 0 head 0 (1.00)."
    assert lines[2] == (
        "1 head puts more than 50% of its weight on the previous word piece: layer 0 head 2 (1.00)."
    )
    assert lines[4].startswith("No head puts more than 50% of its weight on the next word piece")
    assert "the most is layer 0 head 1 (0.25)" in lines[4]
    assert lines[-1] == (
        "1 head spreads its weight almost evenly over every word piece (entropy above 90% of "
        "the most possible): layer 0 head 4 (1.00)."
    )


def test_describe_says_how_many_more():
    A = np.stack([hand_heads()[0, 0]] * 5)[None]  # five heads, all on [CLS]
    line = describe(head_stats(A, TOKENS), top=2)[0]
    assert line == (
        "5 of 5 heads put more than 50% of their weight on [CLS]: layer 0 head 0 (1.00), "
        "layer 0 head 1 (1.00) and 3 more."
    )


@pytest.mark.parametrize(
    ("shape", "tokens", "message"),
    [
        ((2, 3, 3), ["a", "b", "c"], "n_layers, n_heads, n, n"),
        ((1, 1, 3, 4), ["a", "b", "c"], "n_layers, n_heads, n, n"),
        ((1, 1, 3, 3), ["a", "b"], "2 tokens for attention over 3 positions"),
        ((1, 1, 1, 1), ["a"], "at least 2"),
    ],
)
def test_bad_input_is_explained(shape, tokens, message):
    with pytest.raises(ValueError, match=message):
        head_stats(np.ones(shape), tokens)


def test_unknown_pattern_is_explained():
    with pytest.raises(ValueError, match="unknown pattern"):
        head_stats(hand_heads(), TOKENS).of("diagonal")
