"""The Summary cheat sheet (attnviz.lessons.summary) against the seed's rows and the result."""

import numpy as np

from attnviz import Settings, compute, self_attention
from attnviz.lessons.summary import summary_rows

# The course module's Summary table (Concept, Formula), as the seed writes it
SEED_ROWS = [("Query", "Q=XW_Q"), ("Key", "K=XW_K")]


def _result(**kw):
    return compute(Settings(**kw)).result


def test_the_seed_rows_are_there_with_their_formulas():
    rows = {row.concept: row for row in summary_rows(_result())}
    for concept, formula in SEED_ROWS:
        assert rows[concept].formula.replace(" ", "") == formula


def test_every_step_from_x_to_the_output_in_order_with_live_shapes():
    r = _result(text="one two three four five", d_model=8, d_k=3, d_v=5)
    rows = summary_rows(r)
    arrays = [r.X, r.W_Q, r.W_K, r.W_V, r.Q, r.K, r.V, r.scores, r.scaled_scores]
    arrays += [r.attention, r.output]
    assert len(rows) == len(arrays)
    for row, array in zip(rows, arrays, strict=True):
        assert row.shape == array.shape
        assert row.sizes == " × ".join(map(str, array.shape))
    heads = [row.formula.split("=")[0].strip() for row in rows]
    assert heads[:4] == ["X", "W_Q", "W_K", "W_V"]
    assert heads[4:] == ["Q", "K", "V", "S", "S'", "A", r"\mathrm{Output}"]
    assert rows[1].sizes == "8 × 3" and rows[6].sizes == "5 × 5" and rows[-1].sizes == "5 × 5"


def test_the_formulas_follow_scale_mask_and_temperature():
    on = {row.concept: row for row in summary_rows(_result())}
    assert r"\sqrt{d_k}" in on["Scaled score"].formula
    assert on["Attention matrix"].formula.startswith(r"A = \mathrm{softmax}(S')")
    off = {row.concept: row for row in summary_rows(_result(scale=False))}
    assert r"\sqrt" not in off["Scaled score"].formula
    assert "S' = S" in off["Scaled score"].formula and "off" in off["Scaled score"].meaning
    # the spread's claim holds on any example: it stops growing with d_k, it is not "near 1"
    # (std(S') is 1.522 on the step page's own sentence; review 4, I4)
    assert "no longer grows with d_k" in on["Scaled score"].meaning
    assert "near 1" not in on["Scaled score"].meaning
    both = summary_rows(_result(mask="causal", temperature=2.0))
    assert "S' / 2 + M" in both[9].formula


def test_a_bias_shows_in_the_projection_formulas():
    X, W = np.eye(2), np.ones((2, 2))
    r = self_attention(X, W, W, W, b_Q=np.zeros(2), b_K=np.zeros(2), b_V=np.zeros(2))
    assert [row.formula for row in summary_rows(r)[4:7]] == [
        "Q = XW_Q + b_Q",
        "K = XW_K + b_K",
        "V = XW_V + b_V",
    ]
