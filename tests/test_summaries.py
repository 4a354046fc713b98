"""attnviz.model.summaries against references written here with plain loops (no shared code):
per-layer head means, attention rollout, and the two-sentence difference of one word's row."""

import numpy as np
import pytest

from attnviz.model.summaries import (
    align,
    head_mean,
    pair_difference,
    rollout,
    shares,
    strongest_link,
    strongest_shared_links,
    with_residual,
)

TIRED = "The animal didn't cross the street because it was too tired."
WIDE = "The animal didn't cross the street because it was too wide."


def random_attention(seed, L=3, H=4, n=5, stochastic=True):
    """Random (L, H, n, n) weights; rows sum to 1 when ``stochastic`` (some rows sparse)."""
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.full(n, 0.5), size=(L, H, n))
    A[0, 0, 0] = np.eye(n)[n - 1]  # one row all on one key
    return A if stochastic else A * rng.uniform(0.5, 2.0, size=(L, H, n, 1))


def reference_rollout(A):
    """Abnar & Zuidema's rollout, loop by loop: mean over heads, half identity, rows normalised,
    then R = Ã_l R (R starts as the identity); returns every layer's R as nested lists."""
    L, H, n = len(A), len(A[0]), len(A[0][0])
    R = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    every = []
    for layer in range(L):
        M = []
        for i in range(n):
            row = []
            for j in range(n):
                mean = sum(A[layer][h][i][j] for h in range(H)) / H
                row.append(0.5 * mean + (0.5 if i == j else 0.0))
            total = sum(row)
            M.append([value / total for value in row])
        R = [[sum(M[i][k] * R[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
        every.append(R)
    return every


def reference_distance(shared, n_a, n_b, row_a, row_b):
    """Total variation distance of two rows whose shared pieces are the pairs ``shared``
    [(i_a, i_b)], given by hand: every run of unshared positions between two shared ones is
    one key (its weights summed), in each sentence."""

    def slots(row, side, n):
        ends = [pair[side] for pair in shared]
        out, gap = {}, 0
        for j in range(n):
            if j in ends:
                out[("piece", ends.index(j))] = row[j]
                gap += 1  # the next unshared run is a new place
            else:
                out[("place", gap)] = out.get(("place", gap), 0.0) + row[j]
        return out

    pa, pb = slots(row_a, 0, n_a), slots(row_b, 1, n_b)
    keys = pa.keys() | pb.keys()
    return 0.5 * sum(abs(pa.get(k, 0.0) - pb.get(k, 0.0)) for k in keys)


@pytest.fixture(scope="module")
def model(real_model):
    return real_model


@pytest.fixture(scope="module")
def pair(model):
    return model.run(TIRED), model.run(WIDE)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("stochastic", [True, False])
def test_rollout_equals_the_loop_reference(seed, stochastic):
    A = random_attention(seed, stochastic=stochastic)
    R = rollout(A)
    np.testing.assert_allclose(R, reference_rollout(A.tolist()), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(R.sum(axis=-1), 1.0, atol=1e-12)


def test_rollout_of_the_real_model_equals_the_loop_reference(pair):
    A = pair[0].attention
    R = rollout(A)
    assert R.shape == (6, len(pair[0].tokens), len(pair[0].tokens))
    np.testing.assert_allclose(R, reference_rollout(A.astype(float).tolist()), atol=1e-9)
    np.testing.assert_allclose(R.sum(axis=-1), 1.0, atol=1e-9)
    assert (R >= 0).all()


def test_head_mean_and_residual_mix():
    A = random_attention(7)
    mean = head_mean(A)
    for layer in range(3):
        for i in range(5):
            for j in range(5):
                assert mean[layer, i, j] == pytest.approx(sum(A[layer, :, i, j]) / 4)
    mixed = with_residual(A)
    np.testing.assert_allclose(mixed, 0.5 * mean + 0.5 * np.eye(5), atol=1e-12)
    np.testing.assert_allclose(with_residual(A, residual=0.0), mean, atol=1e-12)
    with pytest.raises(ValueError, match="residual must be from 0 to 1"):
        with_residual(A, residual=1.5)
    with pytest.raises(ValueError, match=r"\(n_layers, n_heads, n, n\)"):
        rollout(np.ones((3, 3)))


def test_shares_of_a_small_matrix():
    M = np.array([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0], [0.25, 0.25, 0.5]])
    got = shares(M, ["[CLS]", "x", "[SEP]"])
    assert got.itself == pytest.approx((0.5 + 1.0 + 0.5) / 3)
    assert got.special == pytest.approx((0.75 + 0.0 + 0.75) / 3)
    assert got.top_key == 1 and got.top_weight == pytest.approx(1.5 / 3)


def test_alignment_of_the_classic_pair(pair):
    a, b = pair
    al = align(a.tokens, b.tokens)
    assert al.differing() == [(("tired",), ("wide",))]
    n = len(a.tokens)
    assert al.shared() == [(j, j) for j in range(n) if j != n - 3]
    assert [a.tokens[i] for i, _ in al.shared()] == [b.tokens[j] for _, j in al.shared()]
    assert al.slots == n


def test_street_to_road_keeps_it_shared_word_by_word(model, pair):
    """Two words changed apart: every piece between them stays shared, "it" with it."""
    a = list(pair[0].tokens)
    b = list(model.run(WIDE.replace("street", "road")).tokens)
    assert a[8] == "street" and b[8] == "road"
    al = align(a, b)
    assert al.differing() == [(("street",), ("road",)), (("tired",), ("wide",))]
    it = a.index("it")
    assert al.in_b(it) == b.index("it")
    assert al.slot_labels(a) == [*a[:8], "street / road", *a[9:13], "tired / wide", *a[14:]]
    assert [al.slot(i, "a") for i in range(len(a))] == list(range(len(a)))


def test_alignment_when_one_side_is_empty_or_the_sentences_are_equal():
    al = align(["[CLS]", "the", "cat", "[SEP]"], ["[CLS]", "the", "black", "cat", "[SEP]"])
    assert al.differing() == [((), ("black",))]
    assert al.shared() == [(0, 0), (1, 1), (2, 3), (3, 4)] and al.in_b(2) == 3
    assert [al.slot(i, "a") for i in range(4)] == [0, 1, 3, 4]
    assert [al.slot(j, "b") for j in range(5)] == [0, 1, 2, 3, 4]
    assert al.slot_labels(["C", "t", "c", "S"]) == ["C", "t", "(nothing) / black", "c", "S"]
    same = align(["a", "b", "a"], ["a", "b", "a"])
    assert same.identical and same.slots == 3
    with pytest.raises(ValueError, match="not a piece both sentences share"):
        align(["a", "x", "b"], ["a", "y", "b"]).in_b(1)


@pytest.mark.parametrize("seed", range(4))
def test_distance_and_ranking_on_random_rows(seed):
    tokens_a = ["[CLS]", "a", "b", "c", "d", ".", "[SEP]"]
    tokens_b = ["[CLS]", "a", "x", "y", ".", "[SEP]"]
    A = random_attention(seed, L=2, H=3, n=7)
    B = random_attention(seed + 100, L=2, H=3, n=6)
    al = align(tokens_a, tokens_b)
    shared = [(0, 0), (1, 1), (5, 4), (6, 5)]  # by hand: "b c d" / "x y" is one place
    assert al.shared() == shared
    for query_a, query_b in [(1, 1), (5, 4), (6, 5)]:
        diff = pair_difference(A, B, al, query_a)
        assert diff.query_b == query_b
        expected = {
            (layer, head): reference_distance(
                shared, 7, 6, A[layer, head, query_a], B[layer, head, query_b]
            )
            for layer in range(2)
            for head in range(3)
        }
        for (layer, head), value in expected.items():
            assert diff.distance[layer, head] == pytest.approx(value, abs=1e-12)
        order = sorted(expected, key=lambda k: -expected[k])
        assert [(layer, head) for layer, head, _ in diff.ranked()] == order
        np.testing.assert_allclose(diff.rows_a.sum(-1), 1.0)


def test_a_head_that_reads_the_differing_word_in_both_does_not_differ():
    tokens_a, tokens_b = ["[CLS]", "it", "tired", "[SEP]"], ["[CLS]", "it", "wide", "[SEP]"]
    A = np.zeros((1, 1, 4, 4))
    A[..., 1, 2] = 1.0  # "it" looks at "tired" ...
    B = A.copy()  # ... and at "wide"
    assert pair_difference(A, B, align(tokens_a, tokens_b), 1).distance[0, 0] == 0
    B[..., 1, 2], B[..., 1, 0] = 0.0, 1.0  # now at [CLS]: all its weight moved
    assert pair_difference(A, B, align(tokens_a, tokens_b), 1).distance[0, 0] == 1


def test_the_real_pair_ranking_and_the_strongest_link(pair):
    a, b = pair
    al = align(a.tokens, b.tokens)
    it = a.tokens.index("it")
    diff = pair_difference(a.attention, b.attention, al, it)
    n = len(a.tokens)
    shared = [(j, j) for j in range(n) if j != n - 3]  # all but "tired" / "wide"
    expected = {
        (layer, head): reference_distance(
            shared, n, n, a.attention[layer, head, it], b.attention[layer, head, it]
        )
        for layer in range(6)
        for head in range(12)
    }
    ranking = diff.ranked()
    assert [(layer, head) for layer, head, _ in ranking] == sorted(
        expected, key=lambda k: -expected[k]
    )
    for layer, head, value in ranking:
        assert value == pytest.approx(expected[layer, head], abs=1e-6)
    skip = [0, len(a.tokens) - 1, it]
    layer, head, key, weight = strongest_link(a.attention, it, skip)
    best = max(
        (a.attention[ll, hh, it, j], ll, hh, j)
        for ll in range(6)
        for hh in range(12)
        for j in range(len(a.tokens))
        if j not in skip
    )
    assert (weight, layer, head, key) == (float(best[0]), *best[1:])
    assert strongest_link(a.attention[:, :, :2, :2], 0, [0, 1]) is None


def test_strongest_shared_links_of_the_real_pair(pair):
    a, b = pair
    it = a.tokens.index("it")  # the same position in both: the pieces before it are shared
    links = strongest_shared_links(a.attention, b.attention, align(a.tokens, b.tokens), it)
    shared = [  # shared pieces by hand: before the differing word, and ". [SEP]" after it
        (j, j) for j in range(len(a.tokens) - 3) if a.tokens[j] == b.tokens[j]
    ] + [(len(a.tokens) - 2, len(b.tokens) - 2)]
    keys = [(i, j) for i, j in shared if a.tokens[i] not in ("[CLS]", "[SEP]") and abs(i - it) > 1]
    for link, here, there, side in ((links[0], a, b, 0), (links[1], b, a, 1)):
        best = max(
            (here.attention[ll, hh, it, k[side]], ll, hh, k)
            for ll in range(6)
            for hh in range(12)
            for k in keys
        )
        weight, layer, head, (key_a, key_b) = best
        assert (link.layer, link.head, link.key_a, link.key_b) == (layer, head, key_a, key_b)
        assert link.weight == pytest.approx(float(weight))
        other = there.attention[layer, head, it, (key_a, key_b)[1 - side]]
        assert link.other == pytest.approx(float(other))
