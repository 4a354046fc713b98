"""Exercises for hand computation: every blank holds the core's number, the draws are easy by
hand, the tolerances and hints are as stated, and every typed answer gets a message."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.exercises import LEVELS, Tolerance, check, make_exercise, read_answer
from attnviz.exercises.blanks import EXACT, EXP, NEAR
from attnviz.exercises.draw import SIZES, draw
from attnviz.exercises.notation import shown
from attnviz.limits import EX_LEVELS, MAX_ANSWER_CHARS, MAX_EX_TRIES, MAX_SEED

levels = st.integers(1, EX_LEVELS)
seeds = st.integers(0, MAX_SEED)


def core_value(core, key):
    """The number a blank's key names, read from a fresh core result (indices from 1)."""
    kind, *idx = key.split("_")
    if kind == "shape":
        what, part = idx
        shape = (core.scores if what == "S" else core.output).shape
        return shape[0 if part == "rows" else 1]
    i, *rest = (int(k) - 1 for k in idx)
    if kind in ("Q", "K", "V"):
        return getattr(core, kind)[i, rest[0]]
    if kind == "m":
        return core.row_max[i]
    if kind == "sum":
        return core.row_sum[i]
    j = rest[0]
    if kind == "e":  # exp(S'_ij - m_i) = A_ij times the row's sum
        return core.attention[i, j] * core.row_sum[i]
    field = {"S": "scores", "Sp": "scaled_scores", "A": "attention", "O": "output"}[kind]
    return getattr(core, field)[i, j]


def fresh_core(ex):
    r = ex.result
    mask = attnviz.causal_mask(r.n) if ex.level == 4 else None
    return attnviz.self_attention(r.X, r.W_Q, r.W_K, r.W_V, mask=mask)


@settings(max_examples=60, deadline=None)
@given(level=levels, seed=seeds, exp_given=st.booleans())
def test_every_blank_holds_the_cores_number(level, seed, exp_given):
    ex = make_exercise(level, seed, exp_given)
    core = fresh_core(ex)
    assert ex.blanks
    assert len({b.key for b in ex.blanks}) == len(ex.blanks)
    for b in ex.blanks:
        np.testing.assert_allclose(b.expected, core_value(core, b.key), rtol=1e-12, atol=1e-12)
        assert f"= {shown(b.expected, 4)}" in b.working.latex, b.working.latex  # the key's answer
        # a negative number after a minus is in parentheses: "-4.25 - (-2.75)", never "- -2.75"
        hints = [p.latex for hint in b.hints for p in hint if not isinstance(p, str)]
        assert not re.search(r"- -\d", " ".join([b.working.latex, *hints])), b.working.latex
    if exp_given and level in (2, 4, 5):
        powers = dict(ex.exp_table)
        for a in range(core.n):
            for j in range(core.n):
                needed = core.mask is None or core.mask[a, j]
                if needed and (level == 5 or a == ex.i):
                    x = round(float(core.logits[a, j] - core.row_max[a]), 6)
                    assert powers[x] == pytest.approx(core.attention[a, j] * core.row_sum[a])
        assert not any(b.key.startswith("e_") for b in ex.blanks)


@settings(max_examples=60, deadline=None)
@given(level=levels, seed=seeds)
def test_every_draw_is_small_exact_and_easy_by_hand(level, seed):
    d = draw(level, seed)
    assert d.tries < MAX_EX_TRIES  # found by rejection, not the fallback
    r = d.result
    n_s, dm_s, dk_s, dv_s = SIZES[level]
    assert r.n in n_s and r.d_model in dm_s and r.d_k in dk_s and r.d_v in dv_s
    assert 2 <= r.n <= 4 and 2 <= r.d_model <= 4 and r.d_k in ((2, 3) if level in (1, 3) else (4,))
    for M in (r.X, r.W_Q, r.W_K, r.W_V, r.Q, r.K, r.V):  # whole numbers or one decimal
        np.testing.assert_array_equal(M * 10, np.round(M * 10))
    assert max(np.abs(r.Q).max(), np.abs(r.K).max(), np.abs(r.V).max()) <= 4
    rows = range(r.n) if level == 5 else [d.i]
    if level in (2, 4, 5):
        for a in rows:
            keys = np.ones(r.n, bool) if r.mask is None else r.mask[a]
            seen = r.attention[a, keys]
            assert seen.min() >= 0.04 and seen.max() <= 0.96  # neither flat nor one-hot
            S = r.scaled_scores[a, keys] * 4
            np.testing.assert_array_equal(S, np.round(S))  # S' to at most two decimals
    if level in (3, 4):  # A to 3 decimals gives the output to within half the tolerance
        A3 = np.round(r.attention[d.i], 3)
        assert np.abs(A3 @ r.V - r.output[d.i]).max() <= NEAR.absolute / 2


def test_the_same_level_and_seed_give_the_same_exercise():
    a, b = make_exercise(4, 123), make_exercise(4, 123)
    assert [x.expected for x in a.blanks] == [x.expected for x in b.blanks]
    np.testing.assert_array_equal(a.result.Q, b.result.Q)
    assert any(
        not np.array_equal(make_exercise(4, s).result.Q, a.result.Q) for s in range(124, 130)
    )


def test_each_level_asks_what_it_says():
    keys = {
        level: [b.key.split("_")[0] for b in make_exercise(level, 5).blanks] for level in LEVELS
    }
    assert set(keys[1]) == {"Q", "K", "S", "shape"}
    assert set(keys[2]) == {"Sp", "m", "e", "sum", "A"}
    assert set(keys[3]) == {"shape", "O"}
    assert set(keys[4]) == {"Sp", "m", "e", "sum", "A", "O"}
    ex5 = make_exercise(5, 5)
    assert keys[5].count("A") == ex5.result.n**2 and keys[5].count("Sp") == ex5.result.n**2
    ex4 = make_exercise(4, 5)
    masked = [b for b in ex4.blanks if b.key.startswith("A_") and b.expected == 0]
    assert masked and all("mask" in b.hints[0][0] for b in masked)
    assert keys[4].count("A") == ex4.result.n  # the whole row, hidden keys too


def test_levels_and_seeds_out_of_range_are_refused():
    for level, seed in ((0, 1), (6, 1), (1, -1), (1, MAX_SEED + 1), (1.5, 1), (True, 1)):
        with pytest.raises(ValueError):
            make_exercise(level, seed)


def test_tolerances_are_as_stated():
    assert NEAR.allows(1.509, 1.5) and not NEAR.allows(1.511, 1.5)
    assert EXP.allows(0.2865 * 1.019, 0.2865) and not EXP.allows(0.2865 * 1.021, 0.2865)
    assert EXACT.allows(3, 3) and not EXACT.allows(3.1, 3)
    assert (NEAR.describe(), EXP.describe(), EXACT.describe()) == ("±0.01", "within 2 %", "exactly")
    assert Tolerance(0.01, 0.02).describe() == "±0.01 or 2 %"
    ex = make_exercise(2, 11)
    for b in ex.blanks:
        assert b.tolerance == (EXP if b.key.startswith(("e_", "sum_")) else NEAR)


@settings(max_examples=25, deadline=None)
@given(level=levels, seed=seeds)
def test_hints_go_one_step_at_a_time_and_never_start_with_the_answer(level, seed):
    ex = make_exercise(level, seed)
    for b in ex.blanks:
        assert len(b.hints) >= 2
        first = " ".join(s.latex if hasattr(s, "latex") else s for s in b.hints[0])
        answer = shown(b.expected, 4)
        if abs(b.expected) > 4 or answer not in ("0", "1", "2", "3", "4", "-1", "-2"):
            assert answer not in first, (b.key, first)  # the first hint is the formula
    s = next(b for b in ex.blanks if b.key.startswith(("S_", "Sp_", "O_")))
    last = s.hints[-1]
    assert any(hasattr(seg, "latex") for seg in last)  # the terms of the sum, from the cell


def test_the_last_hint_of_a_score_lists_the_inspectors_products():
    from attnviz.lessons.cell_arithmetic import score_cell

    ex = make_exercise(1, 9)
    b = next(b for b in ex.blanks if b.key.startswith("S_"))
    cell = score_cell(ex.result, ex.i, ex.j)
    terms = [s.latex for s in b.hints[-1] if hasattr(s, "latex")]
    assert terms == [shown(p, 4) for p in cell.products]


@pytest.mark.parametrize(
    ("typed", "value", "words"),
    [
        ("1.5", 1.5, ""),
        ("  -0.25 ", -0.25, ""),
        ("−0.5", -0.5, ""),  # a typographic minus
        ("- 2", -2.0, ""),
        (".5", 0.5, ""),
        ("1e-3", 0.001, ""),
        ("1,5", 1.5, "decimal comma"),
        ("-0,25", -0.25, "decimal comma"),
        (",5", 0.5, "decimal comma"),
        ("0,500", 0.5, "decimal comma"),
        ("3/4", 0.75, "0.75"),
    ],
)
def test_numbers_are_read_and_a_decimal_comma_is_said(typed, value, words):
    reading = read_answer(typed)
    assert reading.value == pytest.approx(value)
    assert (words in reading.note) if words else not reading.note


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("abc", "is not a number"),
        ("1_000", "is not a number"),
        ("1,500", "could be 1.500 or 1500"),
        ("1,2,3", "is not one number"),
        ("1,000.5", "is not one number"),
        ("e^2", "is a formula"),
        ("exp(-1)", "is a formula"),
        ("2*3", "is a formula"),
        ("", "Type a number"),
        ("   ", "Type a number"),
        ("1e999", "far larger"),
        ("12345678", "far larger"),
        ("inf", "not a finite number"),
        ("nan", "not a finite number"),
        ("1/0", "divides by zero"),
        ("25%", "percentage"),
        ("9" * (MAX_ANSWER_CHARS + 1), f"at most {MAX_ANSWER_CHARS} characters"),
    ],
)
def test_bad_input_gets_a_clear_message(typed, words):
    reading = read_answer(typed)
    assert reading.value is None
    assert words in reading.message, reading.message


def test_a_verdict_says_right_wrong_or_why_not_never_raises():
    assert check(1.5, NEAR, "1,5").state == "right"
    assert "decimal comma" in check(1.5, NEAR, "1,5").note
    wrong = check(1.5, NEAR, "1.6")
    assert wrong.state == "wrong" and "±0.01" in wrong.message and "1.5" not in wrong.message
    assert check(1.5, NEAR, "").state == "empty"
    assert check(1.5, NEAR, None).state == "empty"
    assert check(1.5, NEAR, "e^2").state == "unreadable"
    assert check(0.2865, EXP, "0.29").right
    assert check(3, EXACT, "3.5").message.startswith("Not yet: 3.5 is not exactly the answer.")
    assert check(3, EXACT, "3").message == "Right: 3 is exactly 3."
    for junk in ("\x00", "١٢", "1.5.5", "--1", "∞", "\u202e1"):  # never an exception
        assert check(1.5, NEAR, junk).state in ("unreadable", "wrong", "right")
