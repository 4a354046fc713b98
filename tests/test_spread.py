"""Change one number of X and watch it spread: the cells that change, the outline that shows
them, and the sentences that say why (attnviz.lessons.spread, charts.matrix's outline)."""

import numpy as np
import pytest

from attnviz.charts.matrix import matrix_heatmap
from attnviz.charts.matrix_layout import outline_path
from attnviz.checks import AttentionInputError
from attnviz.core import self_attention
from attnviz.lessons.spread import (
    CHANGE_TOLERANCE,
    STEPS,
    Edit,
    changed,
    changed_cells,
    delta,
    delta_line,
    edit_embedding,
    largest_moves,
    reachable_cells,
    spread_of_edit,
)
from attnviz.masking import causal_mask
from tests.helpers import outlined
from tests.reference import attention_steps

FIELDS = [field for field, _ in STEPS]


def random_result(n=5, d_model=6, d_k=3, d_v=4, seed=0, mask=None, **kwargs):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d_model))
    W_Q, W_K = rng.normal(scale=0.5, size=(2, d_model, d_k))  # no row of A near one-hot
    W_V = rng.normal(size=(d_model, d_v))
    return self_attention(X, W_Q, W_K, W_V, mask=mask, **kwargs)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("i", [0, 2, 4])
def test_the_edited_steps_are_attention_on_the_edited_x(i, masked):
    n = 5
    before = random_result(n=n, mask=causal_mask(n) if masked else None)
    after = edit_embedding(before, Edit(i, 1, 2.5))
    X = np.array(before.X)
    X[i, 1] = 2.5
    ref = attention_steps(X, before.W_Q, before.W_K, before.W_V, before.mask)
    for field in FIELDS:
        np.testing.assert_allclose(getattr(after, field), ref[field], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_what_changes_is_what_the_formula_says_can_change(seed, masked):
    """Random weights: row i of Q, K, V; row and column i of S and S'; every row of A that
    sees key i (and row i); those rows of the output. Nothing else moves."""
    n, rng = 6, np.random.default_rng(100 + seed)
    before = random_result(n=n, seed=seed, mask=causal_mask(n) if masked else None)
    i, c = int(rng.integers(n)), int(rng.integers(6))
    after = edit_embedding(before, Edit(i, c, before.X[i, c] + 0.7))
    cells, reach = changed_cells(before, after), reachable_cells(before, i, c)
    for field in FIELDS:
        assert not (cells[field] & ~reach[field]).any(), field  # never outside the reach
        np.testing.assert_array_equal(cells[field], reach[field], err_msg=field)
    if masked:  # rows before i cannot see key i, and their query did not change
        assert not cells["attention"][:i].any() and not cells["output"][:i].any()
    else:
        assert cells["attention"].all() and cells["output"].all()


def test_a_zero_row_of_w_keeps_its_projection_column_still_and_the_text_says_why():
    before = random_result()
    W_Q = np.array(before.W_Q)
    W_Q[2, 0] = 0.0  # entry (i, 0) of Q does not see X_i2
    before = self_attention(before.X, W_Q, before.W_K, before.W_V)
    found = spread_of_edit(before, Edit(1, 2, 3.0), [f"t{k}" for k in range(5)])
    assert not found.cells["Q"][1, 0] and found.cells["Q"][1, 1:].all()
    assert "row 2 of W_Q is not 0" in found.lines["Q"]
    assert "W_K" not in found.lines["K"].split("(")[-1]  # K's row moved everywhere: no remark


def test_changed_ignores_rounding_and_equal_masked_cells():
    old = np.array([[1.0, -np.inf], [1e6, 0.0]])
    new = old + np.array([[1e-13, 0.0], [1e-4, 0.0]])  # 1e-4 on 1e6: 1e-10 relative
    assert not changed(new, old).any()
    new[1, 1] = 2 * CHANGE_TOLERANCE * 1e6
    np.testing.assert_array_equal(changed(new, old), [[False, False], [False, True]])
    assert changed(np.array([[0.0]]), np.array([[-np.inf]])).all()


def test_an_edit_outside_x_or_not_finite_is_refused():
    before = random_result()
    with pytest.raises(AttentionInputError, match="no entry"):
        edit_embedding(before, Edit(5, 0, 1.0))
    with pytest.raises(AttentionInputError, match="must be a number"):
        edit_embedding(before, Edit(0, 0, np.inf))


def test_the_sentences_count_the_cells_that_changed():
    n = 4
    before = random_result(n=n, mask=causal_mask(n))
    found = spread_of_edit(before, Edit(2, 0, 5.0), ["a", "b", "c", "d"])
    lines = found.lines
    assert "from" in lines["X"] and "to 5" in lines["X"] and "embedding of c" in lines["X"]
    count = int(found.cells["attention"].sum())
    assert f"{count} of {n * n} cells changed, in rows 2 to 3" in lines["attention"]
    assert "may not see key 2" in lines["attention"]  # the mask keeps rows 0 and 1
    assert "column 2 because its key changed" in lines["scores"]


def test_outline_path_draws_one_rectangle_per_run_of_a_row():
    cells = np.array([[1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    path = outline_path(cells)
    assert path.count("M") == 3
    spec = matrix_heatmap(np.zeros((3, 4)), list("abc"), list("wxyz"), outline=cells)
    np.testing.assert_array_equal(outlined(spec.to_plotly_json()), cells)
    assert outline_path(np.zeros((2, 2), dtype=bool)) == ""
    plain = matrix_heatmap(np.zeros((3, 4)), list("abc"), list("wxyz"), outline=cells * False)
    assert not plain.layout.shapes and all(t.name != "changed by your edit" for t in plain.data)


def test_a_large_matrix_outlines_the_blocks_that_hold_a_changed_cell():
    n = 200  # drawn in blocks of 3 x 3
    cells = np.zeros((n, n), dtype=bool)
    cells[7, :] = True
    spec = matrix_heatmap(np.zeros((n, n)), [str(k) for k in range(n)], [str(k) for k in range(n)],
                          outline=cells).to_plotly_json()  # fmt: skip
    drawn = outlined(spec)
    assert drawn.shape == (67, 67)
    np.testing.assert_array_equal(np.flatnonzero(drawn.any(axis=1)), [2])  # rows 6-8
    assert drawn[2].all()


# --- how much: the Δ view -----------------------------------------------------------------------


@pytest.mark.parametrize("mask", [None, "causal"])
def test_delta_is_after_minus_before_and_names_the_largest_moves(mask):
    n = 5
    before = random_result(n=n, mask=None if mask is None else causal_mask(n), temperature=1.5)
    labels = [f"t{k}" for k in range(n)]
    found = spread_of_edit(before, Edit(2, 1, 4.0), labels)
    A_before = found.before.attention
    A_after = found.after.attention  # the core's; its after - before, cell by cell:
    np.testing.assert_array_equal(delta(found.before, found.after, "attention"), A_after - A_before)
    D_out = found.after.output - found.before.output
    np.testing.assert_array_equal(delta(found.before, found.after, "output"), D_out)
    top = largest_moves(D_out)
    assert [abs(d) for *_, d in top] == sorted(np.abs(D_out).ravel())[::-1][:3]
    r, c, d = top[0]
    line = delta_line(found, "output", labels)
    assert f"({r}, {c}) = (t{r}, {c}) by {d:+.3g}" in line
    # every other row that sees key 2 moved most at key 2; the rest of it by one factor
    D = A_after - A_before
    for j in range(n):
        if j != 2 and found.before.attention[j, 2] > 0:
            assert np.argmax(np.abs(D[j])) == 2
            rest = np.arange(n) != 2
            seen = rest & (A_before[j] > 0)
            factor = A_after[j, seen] / A_before[j, seen]
            np.testing.assert_allclose(factor, (1 - A_after[j, 2]) / (1 - A_before[j, 2]))
    assert "every other weight was multiplied by" in delta_line(found, "attention", labels)


def test_a_masked_logit_moves_by_zero_not_nan():
    before = random_result(n=4, mask=causal_mask(4))
    found = spread_of_edit(before, Edit(0, 0, 3.0), list("abcd"))
    D = delta(found.before, found.after, "logits")
    assert np.isfinite(D).all() and (D[~causal_mask(4)] == 0).all()
