r"""The blanks of an exercise: what to compute, the core's number, its tolerance, its hints and
the worked line of the key (a softmax row's blanks are in ``softmax_blanks``). Every number is
read from an ``AttentionResult`` through the inspector's cells
(``attnviz.lessons.cell_arithmetic``): nothing is computed again here, only shown.

A hint is a tuple of segments (``str`` text and ``notation.Math``); hints go one step at a
time, from the formula to the terms of its sum, and none of them is the answer.

Indices shown are from 1 (paper's convention); ``i``, ``j``, ``c`` passed in are from 0.
"""

from dataclasses import dataclass

from attnviz.exercises.answers import Tolerance
from attnviz.exercises.notation import (
    Math,
    frac,
    num,
    products,
    seq,
    shape,
    sqrt,
    sym,
    text_in_math,
    total,
    vector,
)
from attnviz.lessons.cell_arithmetic import output_cell, projection_cell, score_cell

NEAR = Tolerance(absolute=0.01)  # sums of products, scaled scores, weights, outputs
EXP = Tolerance(relative=0.02)  # e to a power and sums of them: a calculator's digits vary
EXACT = Tolerance()  # shapes: whole numbers
PLACES = 4  # decimals of the numbers a hint or the key shows


@dataclass(frozen=True)
class Blank:
    """One number to find. ``key`` is its id (ASCII, unique in an exercise); ``name`` the
    formula it is written as; ``expected`` the core's value; ``working`` the key's line (the
    same sum the inspector shows, ending in the value)."""

    key: str
    name: Math
    expected: float
    tolerance: Tolerance
    hints: tuple
    working: Math


def _ix(k):  # an index as shown: from 1
    return k + 1


def projection_blank(result, L, i, c):
    """Q_{i,c} (or K, V) = sum_d X_{i,d} (W_L)_{d,c}, from projection_cell."""
    cell = projection_cell(result, L, i, c)
    i1, c1 = _ix(i), _ix(c)
    name = sym(L, i1, c1)
    formula = seq(name, "=", total("d"), sym("X", i1, "d"), _entry(f"W_{L}", "d", c1))
    return Blank(
        key=f"{L}_{i1}_{c1}",
        name=name,
        expected=cell.value,
        tolerance=NEAR,
        hints=(
            (f"Row {i1} of X times column {c1} of W_{L}: ", formula, "."),
            (
                f"Row {i1} of X is ",
                vector(cell.x_i),
                f" and column {c1} of W_{L} is ",
                vector(cell.w_c),
                ".",
            ),
            ("The products are ", *_listed(cell.terms), ": add them."),
        ),
        working=seq(name, "=", products(cell.x_i, cell.w_c), "=", num(cell.value, PLACES)),
    )


def _entry(W, row, col):
    """(W_Q)_{d,c}: an entry of a weight matrix."""
    inner = sym(W)
    return Math(rf"({inner.latex})_{{{row},{col}}}", f"({inner.typst})_({row},{col})")


def _listed(values):
    """Segments for "a, b and c" (numbers, as a hint's text shows them)."""
    shown = [num(v, PLACES) for v in values]
    out = [shown[0]]
    for k, m in enumerate(shown[1:], start=1):
        out += [" and " if k == len(shown) - 1 else ", ", m]
    return tuple(out)


def score_blank(result, i, j):
    """S_{i,j} = q_i . k_j (level 1: the student has found q_i and k_j above)."""
    cell = score_cell(result, i, j)
    i1, j1 = _ix(i), _ix(j)
    name = sym("S", i1, j1)
    return Blank(
        key=f"S_{i1}_{j1}",
        name=name,
        expected=cell.S_ij,
        tolerance=NEAR,
        hints=(
            (
                seq(
                    name,
                    "=",
                    sym("q", i1),
                    "·",
                    sym("k", j1),
                    "=",
                    total("c"),
                    sym("q", i1, "c"),
                    sym("k", j1, "c"),
                ),
                f": query {i1} against key {j1}, entry by entry.",
            ),
            (
                f"Here q_{i1} = ",
                vector(cell.q_i),
                f" and k_{j1} = ",
                vector(cell.k_j),
                " (check them against your answers above).",
            ),
            ("The products are ", *_listed(cell.products), ": add them."),
        ),
        working=seq(
            name,
            "=",
            sym("q", i1),
            "·",
            sym("k", j1),
            "=",
            products(cell.q_i, cell.k_j),
            "=",
            num(cell.S_ij, PLACES),
        ),
    )


def scaled_blank(result, i, j):
    """S'_{i,j} = q_i . k_j / sqrt(d_k)."""
    cell = score_cell(result, i, j)
    i1, j1 = _ix(i), _ix(j)
    name = sym("S", i1, j1, prime=True)
    d_k = result.d_k
    return Blank(
        key=f"Sp_{i1}_{j1}",
        name=name,
        expected=cell.S_prime_ij,
        tolerance=NEAR,
        hints=(
            (
                seq(name, "=", frac(sym("S", i1, j1), sqrt(sym("d_k")))),
                " with ",
                seq(sym("S", i1, j1), "=", sym("q", i1), "·", sym("k", j1)),
                ".",
            ),
            (
                f"q_{i1} = ",
                vector(cell.q_i),
                f" and k_{j1} = ",
                vector(cell.k_j),
                f"; d_k = {d_k}, so ",
                seq(sqrt(d_k), "=", num(cell.scale_factor, PLACES)),
                ".",
            ),
            (
                "The products are ",
                *_listed(cell.products),
                ", so ",
                seq(sym("S", i1, j1), "=", num(cell.S_ij, PLACES)),
                f": divide it by √{d_k}.",
            ),
        ),
        working=seq(
            name,
            "=",
            frac(products(cell.q_i, cell.k_j), sqrt(d_k)),
            "=",
            frac(num(cell.S_ij, PLACES), num(cell.scale_factor, PLACES)),
            "=",
            num(cell.S_prime_ij, PLACES),
        ),
    )


def output_blank(result, i, c):
    """Output_{i,c} = sum_j A_{i,j} V_{j,c}, from output_cell."""
    cell = output_cell(result, i, c)
    i1, c1 = _ix(i), _ix(c)
    name = sym("O", i1, c1)
    return Blank(
        key=f"O_{i1}_{c1}",
        name=name,
        expected=cell.O_ic,
        tolerance=NEAR,
        hints=(
            (
                seq(name, "=", total("j"), sym("A", i1, "j"), sym("V", "j", c1)),
                f": column {c1} of V averaged with row {i1} of A as the weights.",
            ),
            (
                f"Row {i1} of A is ",
                vector(cell.A_i, PLACES),
                f" and column {c1} of V is ",
                vector(cell.V_c),
                ".",
            ),
            ("The terms are ", *_listed(cell.terms), ": add them."),
        ),
        working=seq(name, "=", products(cell.A_i, cell.V_c), "=", num(cell.O_ic, PLACES)),
    )


def shape_blanks(result, what):
    """Two blanks, the rows and the columns of S (``what="S"``) or of the output ("O")."""
    if what == "S":
        rows, cols = result.scores.shape
        first, second = ("Q", "n", "d_k"), ("K^T", "d_k", "n")
        product = seq(sym("S"), "=", sym("Q"), Math("K^T", "K^T"))
    else:
        rows, cols = result.output.shape
        first, second = ("A", "n", "n"), ("V", "n", "d_v")
        product = seq(sym("O"), "=", sym("A"), sym("V"))
    label = sym(what)
    hint = (
        product,
        f": {first[0]} is {first[1]} × {first[2]} and {second[0]} is {second[1]} × {second[2]}.",
    )
    sizes = (
        f"Here n = {result.n} (one row per token), d_k = {result.d_k} and d_v = {result.d_v}.",
    )
    general = ("A product of an (a × b) and a (b × c) matrix is a × c.",)
    return tuple(
        Blank(
            key=f"shape_{what}_{part}",
            name=seq(Math(rf"\text{{{part} of }}", f'"{part} of"'), label),
            expected=float(value),
            tolerance=EXACT,
            hints=(general, hint, sizes),
            working=seq(product, "∈", shape(rows, cols), ",", text_in_math(part), "=", value),
        )
        for part, value in (("rows", rows), ("columns", cols))
    )


__all__ = [
    "EXACT",
    "EXP",
    "NEAR",
    "Blank",
    "output_blank",
    "projection_blank",
    "scaled_blank",
    "score_blank",
    "shape_blanks",
]
