r"""An exercise for hand computation from (level, seed, exp_given): what is given, the formulas
it needs, and its blanks, each with the core's number.

    ex = make_exercise(2, 7, exp_given=False)
    ex.title, ex.task        # what to do, in words
    ex.givens                # (Given(name, Math matrix, note), ...): the numbers to start from
    ex.formulas              # the formulas the level needs (Math)
    ex.exp_table             # ((x, e^x), ...) when e^x is given, else ()
    ex.blanks                # (Blank, ...), in the order to work them out

Levels: 1 one score S_ij = q_i . k_j (from X, W_Q, W_K) and the shape of S; 2 S'_ij and one
row of A by softmax; 3 one row of the output from A and V, and its shape; 4 a row of A and of
the output with the causal mask; 5 a full small A. ``exp_given`` (levels 2, 4, 5): a table of
e^x replaces the blanks for e to a power.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.exercises import blanks as bl
from attnviz.exercises import softmax_blanks as sb
from attnviz.exercises.draw import draw
from attnviz.exercises.notation import (
    Math,
    exp,
    frac,
    matrix,
    num,
    power,
    seq,
    sqrt,
    sym,
    total,
)

LEVELS = {  # level -> its name
    1: "One score and a shape",
    2: "A row of A by softmax",
    3: "A row of the output",
    4: "With the causal mask",
    5: "A full small A",
}
SOFTMAX_LEVELS = (2, 4, 5)  # levels where e^x may be given
A_PLACES = 4  # decimals of A when it is given (level 3): as the key and the hints show it
EXP_PLACES = 4  # decimals of the e^x table


@dataclass(frozen=True)
class Given:
    """A matrix the exercise starts from: its ``name`` (Math), the ``matrix`` (Math), ``what``
    it is in words and a ``note`` (how it was rounded), both plain text."""

    name: Math
    matrix: Math
    what: str = ""
    note: str = ""


@dataclass(frozen=True, eq=False)
class Exercise:
    level: int
    seed: int
    exp_given: bool
    title: str
    task: str
    givens: tuple
    formulas: tuple
    exp_table: tuple
    blanks: tuple
    result: object  # the AttentionResult every expected value was read from
    i: int
    j: int

    @property
    def label(self):
        """'Level 2 · seed 7' (printed on the sheet, so a paper can be checked here later)."""
        return f"Level {self.level} · seed {self.seed}"


def _given(letter, M, places=4):
    return Given(sym(letter), matrix(M, places), letter)


F_SCORE = seq(
    sym("S", "i", "j"),
    "=",
    sym("q", "i"),
    "·",
    sym("k", "j"),
    "=",
    total("c"),
    sym("q", "i", "c"),
    sym("k", "j", "c"),
)
F_SCALE = seq(sym("S", "i", "j", prime=True), "=", frac(sym("S", "i", "j"), sqrt(sym("d_k"))))
F_MAX = seq(sym("m", "i"), "=", Math(r"\max_j", "max_j"), sym("S", "i", "j", prime=True))
F_SOFTMAX = seq(
    sym("A", "i", "j"),
    "=",
    frac(
        exp(seq(sym("S", "i", "j", prime=True), "-", sym("m", "i"))),
        seq(total("j'"), exp(seq(sym("S", "i", "j'", prime=True), "-", sym("m", "i")))),
    ),
)
F_OUTPUT = seq(sym("O", "i", "c"), "=", total("j"), sym("A", "i", "j"), sym("V", "j", "c"))
F_PROJECTION = seq(
    sym("Q"),
    "=",
    sym("X"),
    sym("W_Q"),
    ",",
    sym("K"),
    "=",
    sym("X"),
    sym("W_K"),
    ",",
    sym("Q", "i", "c"),
    "=",
    total("d"),
    sym("X", "i", "d"),
    Math("(W_Q)_{d,c}", "(W_Q)_(d,c)"),
)
F_SHAPE = Math(r"(a \times b)(b \times c) \to a \times c", "(a times b)(b times c) arrow a times c")
F_MASK = Math(
    r"A_{i,j} = 0 \text{ for } j > i \text{ (causal mask)}",
    'A_(i,j) = 0 " for " j > i " (causal mask)"',
)


def make_exercise(level, seed, exp_given=False):
    """The exercise of ``level`` (1 to 5) drawn from ``seed``; ``exp_given`` matters on levels
    2, 4 and 5 only. ValueError for a level or seed out of range."""
    d = draw(level, seed)
    r, i, j = d.result, d.i, d.j
    exp_given = bool(exp_given) and d.level in SOFTMAX_LEVELS
    build = {1: _level_1, 2: _level_2, 3: _level_3, 4: _level_4, 5: _level_5}[d.level]
    task, givens, formulas, blanks = build(r, i, j, exp_given)
    rows = range(r.n) if d.level == 5 else [i]
    table = _exp_table(r, rows) if exp_given else ()
    return Exercise(
        level=d.level,
        seed=d.seed,
        exp_given=exp_given,
        title=LEVELS[d.level],
        task=task,
        givens=givens,
        formulas=formulas,
        exp_table=table,
        blanks=tuple(blanks),
        result=r,
        i=i,
        j=j,
    )


def _level_1(r, i, j, _):
    givens = (_given("X", r.X), _given("W_Q", r.W_Q), _given("W_K", r.W_K))
    blanks = [bl.projection_blank(r, "Q", i, c) for c in range(r.d_k)]
    blanks += [bl.projection_blank(r, "K", j, c) for c in range(r.d_k)]
    blanks += [bl.score_blank(r, i, j), *bl.shape_blanks(r, "S")]
    task = (
        f"Find row {i + 1} of Q (the query of token {i + 1}) and row {j + 1} of K (the key of "
        f"token {j + 1}), then the score S_{i + 1},{j + 1} = q_{i + 1} · k_{j + 1} and the "
        "shape of S."
    )
    return task, givens, (F_PROJECTION, F_SCORE, F_SHAPE), blanks


def _softmax_row(r, i, exp_given):
    """Blanks for row i of S', m_i, the powers of e (unless given), their sum and row i of A."""
    keys = [j for j in range(r.n) if r.mask is None or r.mask[i, j]]
    out = [bl.scaled_blank(r, i, j) for j in keys] + [sb.max_blank(r, i)]
    if not exp_given:
        out += [sb.exp_blank(r, i, j) for j in keys]
    out += [sb.sum_blank(r, i)] + [sb.weight_blank(r, i, j) for j in range(r.n)]
    return out


def _qk(r):
    return (_given("Q", r.Q), _given("K", r.K))


def _level_2(r, i, _, exp_given):
    task = (
        f"Scale row {i + 1} of the scores (d_k = {r.d_k}), then take its softmax: row {i + 1} of "
        f"A. Keep {bl.PLACES} decimals in the steps."
    )
    return task, _qk(r), (F_SCORE, F_SCALE, F_MAX, F_SOFTMAX), _softmax_row(r, i, exp_given)


def _level_3(r, i, _j, _):
    givens = (
        Given(
            seq(Math(rf"\text{{row {i + 1} of }}", f'"row {i + 1} of "'), sym("A")),
            matrix(r.attention[i : i + 1], A_PLACES),
            f"row {i + 1} of A",
            f"rounded to {A_PLACES} decimals",
        ),
        _given("V", r.V),
    )
    blanks = [*bl.shape_blanks(r, "O"), *(bl.output_blank(r, i, c) for c in range(r.d_v))]
    task = (
        f"Give the shape of the output, then its row {i + 1}: the values V mixed by row "
        f"{i + 1} of A."
    )
    return task, givens, (F_OUTPUT, F_SHAPE), blanks


def _level_4(r, i, _j, exp_given):
    givens = (*_qk(r), _given("V", r.V))
    blanks = _softmax_row(r, i, exp_given) + [bl.output_blank(r, i, c) for c in range(r.d_v)]
    task = (
        f"With the causal mask (query {i + 1} sees keys 1 to {i + 1} only) and d_k = {r.d_k}: "
        f"row {i + 1} of S', of A, then of the output. Keep {bl.PLACES} decimals in the steps."
    )
    return task, givens, (F_SCALE, F_MASK, F_SOFTMAX, F_OUTPUT), blanks


def _level_5(r, _i, _j, exp_given):
    blanks = []
    for a in range(r.n):  # row by row, as by hand: S'_a, m_a, the sum, A_a
        blanks += [bl.scaled_blank(r, a, b) for b in range(r.n)]
        blanks += [sb.max_blank(r, a), sb.sum_blank(r, a)]
        blanks += [sb.weight_blank(r, a, b) for b in range(r.n)]
    task = (
        f"Row by row: every scaled score (d_k = {r.d_k}), the row's largest and its sum of "
        "powers of e, then the whole attention matrix A. Each row of A sums to 1: use it "
        "to check."
    )
    return task, _qk(r), (F_SCORE, F_SCALE, F_MAX, F_SOFTMAX), blanks


def _exp_table(r, rows):
    """((x, e^x), ...) for every power S'_ij - m_i the rows need (e^x from the inspector's
    cells), with as many near misses (x ± 0.25) so the table does not tell the powers; sorted."""
    from attnviz.lessons.cell_arithmetic import score_cell

    found = {}
    for a in rows:
        for b in range(r.n):
            cell = score_cell(r, a, b)
            if cell.allowed:
                found[round(cell.logit_ij - cell.row_max, 6)] = cell.exp_term
    needed = dict(found)
    for x in needed:
        for other in (x - 0.25, x + 0.25):
            if other <= 0 and round(other, 6) not in found:
                found[round(other, 6)] = float(np.exp(other))  # a near miss, not an answer
    return tuple(sorted(found.items()))


def exp_table_math(table):
    """The e^x table as Math pieces: e^{x} = value."""
    return tuple(seq(power(sym("e"), num(x, 4)), "=", num(v, EXP_PLACES)) for x, v in table)
