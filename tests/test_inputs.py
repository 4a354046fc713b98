"""Inputs: tokens, labels, embeddings, positions and weights are deterministic and documented."""

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.inputs import check_tokens
from attnviz.limits import MAX_D_K, MAX_D_MODEL, MAX_D_V, MAX_SEED, MAX_TOKENS

FAST = settings(max_examples=60, deadline=None)

words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6)
tokens = st.lists(words.filter(lambda t: not t.isspace()), min_size=1, max_size=12).filter(
    lambda toks: not all(attnviz.inputs.is_blank(t) for t in toks)  # those get a message
)
seeds = st.integers(0, MAX_SEED)


def raises(match):
    assert issubclass(attnviz.AttentionInputError, ValueError)
    return pytest.raises(attnviz.AttentionInputError, match=match)


# ------------------------------------------------------------------------------------ tokens


def test_tokenize_keeps_case_and_punctuation():
    assert attnviz.tokenize("The cat, THE cat!  sat\n(on) it.") == [
        "The",
        "cat,",
        "THE",
        "cat!",
        "sat",
        "(on)",
        "it.",
    ]
    assert attnviz.tokenize("   ") == []


@FAST
@given(
    st.lists(st.text(st.characters(exclude_categories=["Cs", "Z", "Cc"]), min_size=1), max_size=8)
)
def test_tokenize_splits_only_on_whitespace(parts):
    parts = [p for p in parts if p.split() == [p]]
    assert attnviz.tokenize(" ".join(parts)) == parts


def test_tokenize_needs_a_string():
    with raises(r"the text must be a string \(got list\)"):
        attnviz.tokenize(["the", "cat"])


def test_generated_tokens():
    assert attnviz.generated_tokens(3) == ["t1", "t2", "t3"]
    assert len(attnviz.generated_tokens(MAX_TOKENS)) == MAX_TOKENS


@pytest.mark.parametrize(
    ("n", "match"),
    [
        (0, r"n must be >= 1 \(got 0\)"),
        (MAX_TOKENS + 1, rf"n must be <= {MAX_TOKENS} \(got {MAX_TOKENS + 1}\)"),
        (2.5, r"n must be a whole number \(got 2.5\)"),
    ],
)
def test_generated_tokens_are_limited(n, match):
    with raises(match):
        attnviz.generated_tokens(n)


def test_check_tokens_limits_the_count():
    assert check_tokens(["a"] * MAX_TOKENS) == ["a"] * MAX_TOKENS
    with raises(rf"too many tokens: {MAX_TOKENS + 1} \(at most {MAX_TOKENS}\)"):
        check_tokens(["a"] * (MAX_TOKENS + 1))
    with raises(r"too many tokens: 4 \(at most 3\)"):
        check_tokens("abcd", max_tokens=3)
    with raises(r"there are no tokens: type at least one word"):
        check_tokens([])
    with raises(r"every token must be a non-empty string"):
        check_tokens(["a", ""])
    with raises(r"every token must be a non-empty string"):
        check_tokens(["a", 3])


@FAST
@given(tokens)
def test_token_labels_are_unique(toks):
    labels = attnviz.token_labels(toks)
    assert len(labels) == len(toks)
    assert len(set(labels)) == len(labels)
    toks = [attnviz.inputs.visible(t) for t in toks]  # what a label starts from
    counts = {t: toks.count(t) for t in toks}
    for token, label in zip(toks, labels, strict=True):
        if counts[token] == 1:
            assert label == token
        else:
            assert label.startswith(token) and label != token


def test_token_labels_number_the_repeats():
    assert attnviz.token_labels(["the", "cat", "sat", "on", "the", "mat"]) == [
        "the (1)",
        "cat",
        "sat",
        "on",
        "the (2)",
        "mat",
    ]
    assert attnviz.token_labels(["a", "b"]) == ["a", "b"]


def test_token_labels_stay_unique_when_a_token_looks_like_a_label():
    labels = attnviz.token_labels(["the (1)", "the", "the"])
    assert labels[0] == "the (1)"
    assert len(set(labels)) == 3


# -------------------------------------------------------------------------------- embeddings


@FAST
@given(tokens, st.integers(1, 16), seeds)
def test_same_token_text_gets_the_same_row(toks, d_model, seed):
    E = attnviz.token_embeddings(toks, d_model, seed)
    assert E.shape == (len(toks), d_model)
    for i, a in enumerate(toks):
        for j, b in enumerate(toks):
            assert np.array_equal(E[i], E[j]) == (a == b)
    np.testing.assert_array_equal(attnviz.token_embeddings(toks, d_model, seed), E)


def test_embeddings_come_from_numpys_generator_seeded_by_the_token_text():
    # Derived here from numpy alone: PCG64 seeded with [seed, stream 1, SHA-256 of the text].
    key = int.from_bytes(hashlib.sha256(b"the").digest()[:8], "little")
    expected = np.random.default_rng([0, 1, key]).standard_normal(4)
    E = attnviz.token_embeddings(["the", "cat"], 4, seed=0)
    np.testing.assert_array_equal(E[0], expected)
    assert E[0, 0] == -3.0622527227229726  # the same number on every machine (numpy >= 1.17)


def test_embeddings_depend_on_seed_and_text():
    a = attnviz.token_embeddings(["cat"], 8, seed=0)
    assert not np.array_equal(a, attnviz.token_embeddings(["cat"], 8, seed=1))
    assert not np.array_equal(a, attnviz.token_embeddings(["Cat"], 8, seed=0))
    assert 0.5 < attnviz.token_embeddings(["x"], 512, seed=0).std() < 1.5


@FAST
@given(tokens, st.integers(1, 12))
def test_one_hot_rows_are_unit_vectors_shared_by_equal_tokens(toks, extra):
    distinct = list(dict.fromkeys(toks))
    E = attnviz.one_hot_embeddings(toks, len(distinct) + extra - 1)
    assert (E.sum(axis=1) == 1).all() and set(np.unique(E)) <= {0.0, 1.0}
    for i, token in enumerate(toks):
        assert E[i, distinct.index(token)] == 1.0


def test_one_hot_needs_a_column_per_distinct_token():
    with raises(r"one-hot embeddings need d_model >= the number of distinct tokens \(3; d_model"):
        attnviz.one_hot_embeddings(["a", "b", "c", "a"], 2)


# --------------------------------------------------------------------------------- positions


def textbook_positions(n, d_model):
    PE = np.zeros((n, d_model))
    for pos in range(n):
        for j in range(d_model):
            i = j // 2
            angle = pos / 10000 ** (2 * i / d_model)
            PE[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return PE


@pytest.mark.parametrize("d_model", [1, 2, 3, 4, 7, 8, 64, 65])
@pytest.mark.parametrize("n", [1, 5, 50])
def test_sinusoidal_positions_follow_the_textbook_formula(n, d_model):
    PE = attnviz.sinusoidal_positions(n, d_model)
    assert PE.shape == (n, d_model)
    np.testing.assert_allclose(PE, textbook_positions(n, d_model), rtol=1e-12, atol=1e-12)


def test_sinusoidal_positions_limit_d_model():
    with raises(rf"d_model must be <= {MAX_D_MODEL}"):
        attnviz.sinusoidal_positions(3, MAX_D_MODEL + 1)


# ----------------------------------------------------------------------------------- weights


@FAST
@given(st.integers(1, 12), st.integers(1, 8), st.integers(1, 8), st.integers(1, 4), seeds)
def test_changing_d_k_changes_neither_x_nor_w_v(d_model, d_k, d_v, more, seed):
    X = attnviz.token_embeddings(["the", "cat"], d_model, seed)
    W_Q, W_K, W_V = attnviz.projection_weights(d_model, d_k, d_v, seed)
    wider_Q, wider_K, same_V = attnviz.projection_weights(d_model, d_k + more, d_v, seed)
    assert W_Q.shape == W_K.shape == (d_model, d_k) and W_V.shape == (d_model, d_v)
    np.testing.assert_array_equal(same_V, W_V)
    np.testing.assert_array_equal(wider_Q[:, :d_k], W_Q)  # raising d_k keeps the first columns
    np.testing.assert_array_equal(wider_K[:, :d_k], W_K)
    np.testing.assert_array_equal(attnviz.token_embeddings(["the", "cat"], d_model, seed), X)
    assert not np.array_equal(W_Q, W_K)


def test_projection_weights_are_deterministic_and_seeded():
    a = attnviz.projection_weights(8, 4, 4, seed=3)
    b = attnviz.projection_weights(8, 4, 4, seed=3)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], attnviz.projection_weights(8, 4, 4, seed=4)[0])


@pytest.mark.parametrize("d_model", [16, 256])
def test_projection_weights_have_std_one_over_sqrt_d_model(d_model):
    W_Q, W_K, W_V = attnviz.projection_weights(d_model, 256, 256, seed=0)
    for W in (W_Q, W_K, W_V):
        assert W.std() * np.sqrt(d_model) == pytest.approx(1.0, rel=0.05)
        assert abs(W.mean()) < 0.05 / np.sqrt(d_model)


@pytest.mark.parametrize(
    ("dims", "match"),
    [
        ((0, 4, 4), r"d_model must be >= 1 \(got 0\)"),
        ((MAX_D_MODEL + 1, 4, 4), rf"d_model must be <= {MAX_D_MODEL}"),
        ((8, 0, 4), r"d_k must be >= 1 \(got 0\): choose a key dimension"),
        ((8, MAX_D_K + 1, 4), rf"d_k must be <= {MAX_D_K}"),
        ((8, 4, 0), r"d_v must be >= 1"),
        ((8, 4, MAX_D_V + 1), rf"d_v must be <= {MAX_D_V}"),
        ((8, 4.0, 4), r"d_k must be a whole number \(got 4.0\)"),
    ],
)
def test_projection_weights_check_dimensions(dims, match):
    with raises(match):
        attnviz.projection_weights(*dims)


def test_too_large_d_model_for_embeddings():
    with raises(rf"d_model must be <= {MAX_D_MODEL} \(got {MAX_D_MODEL + 1}\)"):
        attnviz.token_embeddings(["a"], MAX_D_MODEL + 1)
    with raises(r"too many tokens"):
        attnviz.token_embeddings(["a"] * (MAX_TOKENS + 1), 4)


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.5, "1", True, None])
def test_bad_seeds_are_explained(seed):
    with raises(rf"seed must be a whole number from 0 to {MAX_SEED}"):
        attnviz.token_embeddings(["a"], 4, seed=seed)
    with raises(rf"seed must be a whole number from 0 to {MAX_SEED}"):
        attnviz.projection_weights(4, 4, 4, seed=seed)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\u202eb", "a⟨U+202E⟩b"),  # right-to-left override: would mirror what follows
        ("\u2066x\u2069", "⟨U+2066⟩x⟨U+2069⟩"),  # bidi isolates
        ("zero\u200bwidth", "zero⟨U+200B⟩width"),
        ("bell\x07", "bell⟨U+0007⟩"),
        ("héllo 👨‍👩‍👧 ∑", "héllo 👨‍👩‍👧 ∑"),  # ordinary text, joiners in emoji kept
    ],
)
def test_visible_writes_out_invisible_and_bidi_characters(text, shown):
    assert attnviz.inputs.visible(text) == shown


def test_labels_show_bidi_controls_and_stay_unique():
    labels = attnviz.token_labels(["x\u202e", "x\u202e", "y"])
    assert labels == ["x⟨U+202E⟩ (1)", "x⟨U+202E⟩ (2)", "y"]


@pytest.mark.parametrize("text", ["\u200b", "\u200b \u202e", "\u2060\ufeff \u200e"])
def test_a_text_of_only_invisible_characters_is_explained(text):
    with pytest.raises(attnviz.AttentionInputError, match="only invisible characters"):
        attnviz.compute(attnviz.Settings(text=text))
