"""Sketch the row: the numbers (renormalisation, masked keys, the distance, the class's mean and
spread, the largest key, the snapshots, the sentences) and the question's true row."""

import numpy as np
import pytest

from attnviz import inputs
from attnviz.classroom.sketch import VARIANTS, read_kind, sketch_kind, sketch_question
from attnviz.lessons import sketch
from attnviz.limits import MAX_ROOM_TOKENS, SKETCH_LEVELS
from attnviz.settings import Settings


def test_a_sketch_is_renormalised_over_the_keys_the_query_may_see():
    w = sketch.weights([2, 0, 1, 1])
    assert np.allclose(w, [0.5, 0, 0.25, 0.25]) and np.isclose(w.sum(), 1)
    masked = sketch.weights([2, 3, 1, 1], allowed=[True, False, True, False])
    assert np.allclose(masked, [2 / 3, 0, 1 / 3, 0])  # hidden keys at 0, the rest rescaled
    assert sketch.weights(sketch.even_levels([True, True, False])).tolist() == [0.5, 0.5, 0]
    with pytest.raises(sketch.SketchError, match="raise at least one bar"):
        sketch.weights([0, 0, 3], allowed=[True, True, False])


@pytest.mark.parametrize(
    ("levels", "allowed", "says"),
    [
        ([1, 2], None, "3 whole numbers"),
        ([1, 2, 1.5], None, "3 whole numbers"),
        ([1, "x", 1], None, "whole number per key"),
        ([1, SKETCH_LEVELS + 1, 0], None, f"0 to {SKETCH_LEVELS}"),
        ([1, -1, 0], None, f"0 to {SKETCH_LEVELS}"),
        ([1, 1, 1], [True, True, False], "mask hides"),
        (None, None, "whole number per key"),
    ],
)
def test_a_bad_sketch_says_what_is_wrong(levels, allowed, says):
    with pytest.raises(sketch.SketchError, match=says):
        sketch.check_levels(levels, 3, allowed)


def test_a_sketch_has_at_most_the_rooms_keys():
    with pytest.raises(sketch.SketchError, match=f"1 to {MAX_ROOM_TOKENS} keys"):
        sketch.check_levels([1] * (MAX_ROOM_TOKENS + 1), MAX_ROOM_TOKENS + 1)
    assert sketch.check_levels(np.array([1, 0, 2]), 3) == (1, 0, 2)


def test_the_distance_is_total_variation_in_zero_one():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, MAX_ROOM_TOKENS + 1))
        p, q = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
        d = sketch.tv_distance(p, q)
        assert 0 <= d <= 1 and np.isclose(d, sketch.tv_distance(q, p))
        # TV is also the most two distributions differ on one set of keys: the keys where p > q
        assert np.isclose(d, (p - q)[p > q].sum())
    assert sketch.tv_distance([1, 0, 0], [0, 0.5, 0.5]) == 1.0  # no weight in common
    assert sketch.tv_distance([0.2, 0.8], [0.2, 0.8]) == 0.0


def test_the_class_summary_per_key():
    truth = np.array([0.1, 0.6, 0.3])
    rows = sketch.class_rows([(1, 4, 1), (0, 1, 1), (1, 1, 1)])  # two put most on key 1
    s = sketch.summary(rows, truth, ("a", "b", "c"))
    assert np.allclose(s.mean, rows.mean(axis=0)) and np.allclose(s.spread, rows.std(axis=0))
    assert np.allclose(s.distances, [0.5 * np.abs(r - truth).sum() for r in rows])
    assert s.right_largest == 1  # (0,1,1) ties b and c: c is wrong; (1,1,1) ties everything
    assert s.histogram.sum() == 3 and len(s.histogram) == sketch.HISTOGRAM_BINS
    assert s.histogram[int(s.distances[0] * 10)] >= 1
    lines = sketch.key_lines(s)
    assert lines[1] == f"key b: class {s.mean[1]:.2f} ± {s.spread[1]:.2f}, true 0.60"
    said = sketch.sentence(s)
    assert (
        said == f"The class put {s.mean[1]:.2f} on b; the row puts 0.60 there; 1 of 3 phones "
        "picked the right largest key."
    )
    keys, bins = sketch.report_tables(s)
    assert [k[0] for k in keys] == ["a", "b", "c"] and sum(b[2] for b in bins) == 3


def test_a_tied_largest_key_counts_either_and_says_both():
    truth = np.array([0.4, 0.1, 0.4, 0.1])
    rows = sketch.class_rows([(5, 0, 0, 0), (0, 0, 5, 0), (5, 0, 5, 0), (5, 5, 0, 0)])
    s = sketch.summary(rows, truth, ("the (1)", "cat", "the (2)", "mat"))
    assert s.right_largest == 3
    assert (
        "0.40 each on the (1) and on the (2); 3 of 4 phones picked one of the row's largest keys"
        in (sketch.sentence(s))
    )


def test_no_sketch_yet():
    s = sketch.summary(np.zeros((0, 3)), [0.2, 0.5, 0.3], ("a", "b", "c"))
    assert s.phones == 0 and s.mean.tolist() == [0, 0, 0] and sketch.snapshots([], s.truth) == {}
    assert sketch.sentence(s).startswith("No phone sketched")


def test_snapshots_closest_farthest_and_most_common_shape():
    truth = np.array([0.0, 1.0, 0.0])
    rows = sketch.class_rows([(1, 1, 0), (0, 5, 0), (5, 0, 0), (1, 1, 0), (2, 2, 1)])
    picked = sketch.snapshots(rows, truth)
    assert picked == {"closest": 1, "farthest": 2, "most common shape": 0}


def test_the_kind_is_stored_as_text_and_read_back():
    for variant in VARIANTS:
        assert read_kind(sketch_kind(variant, 3)) == (variant, 3)
    for bad in ("row_sum", "sketch:", "sketch:hot:1", "sketch:plain:x", "sketch:plain:99", None):
        assert read_kind(bad) is None


def _row(X, W_Q, W_K, i, mask_row=None, scale=True, T=1.0):
    """An independent row of A: softmax(q_i · k_j / (√d_k) / T) over the allowed keys."""
    logits = (X @ W_Q)[i] @ (X @ W_K).T / (np.sqrt(W_K.shape[1]) if scale else 1) / T
    if mask_row is not None:
        logits = np.where(mask_row, logits, -np.inf)
    e = np.exp(logits - logits.max())
    return e / e.sum()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_true_row_is_the_cores_a_for_the_variant(variant):
    settings = Settings(mask="causal", temperature=3.0)  # the variant, not the sidebar, decides
    q = sketch_question(settings, variant, 3)
    tokens = settings.tokens
    X = inputs.token_embeddings(tokens, settings.d_model, settings.seed)
    d_k = 64 if variant == "unscaled" else settings.d_k
    W_Q, W_K, _ = inputs.projection_weights(settings.d_model, d_k, settings.d_v, settings.seed)
    mask_row = np.arange(len(tokens)) <= 3 if variant == "causal" else None
    expected = _row(
        X, W_Q, W_K, 3, mask_row, scale=variant != "unscaled", T=0.2 if variant == "cold" else 1.0
    )
    assert np.allclose(q.truth, expected, atol=1e-12)
    assert q.allowed == tuple(mask_row if mask_row is not None else [True] * len(tokens))
    assert q.labels[3] in q.text and len(q.clue.values) == len(tokens)


def test_a_question_that_cannot_be_asked_says_so():
    with pytest.raises(sketch.SketchError, match="one of the example's"):
        sketch_question(Settings(), "plain", 6)
    with pytest.raises(sketch.SketchError, match="one of plain"):
        sketch_question(Settings(), "hot", 1)


def test_the_reports_rows_for_the_lecturers_csv():
    from attnviz.classroom.sketch import report

    q = sketch_question(Settings(), "causal", 2)
    sketches = [(1, 1, 1, 0, 0, 0), (0, 0, 5, 0, 0, 0)]
    (key_columns, keys), (bin_columns, bins) = report(q, sketches)
    assert key_columns[0] == "key" and len(keys) == 6 and bin_columns[-1] == "phones"
    w = np.array(sketches, dtype=float) / np.sum(sketches, axis=1, keepdims=True)
    for j, (label, mean, spread, true) in enumerate(keys):
        assert label == q.labels[j] and true == round(q.truth[j], 4)
        assert mean == round(w[:, j].mean(), 4) and spread == round(w[:, j].std(), 4)
    d = 0.5 * np.abs(w - np.array(q.truth)).sum(axis=1)
    assert [b[2] for b in bins] == np.bincount(
        np.minimum(d * 10, 9).astype(int), minlength=10
    ).tolist()
