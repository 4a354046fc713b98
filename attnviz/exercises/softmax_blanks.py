r"""The blanks of a softmax row: m_i, exp(S'_ij - m_i), the row's sum and A_ij, each read from
the inspector's cells (``attnviz.lessons.cell_arithmetic.score_cell``), with its hints and the
key's worked line (see ``blanks``). Indices shown are from 1; those passed in are from 0.
"""

from attnviz.exercises.blanks import EXP, NEAR, PLACES, Blank, _ix, _listed
from attnviz.exercises.notation import (
    added,
    exp,
    frac,
    max_of,
    num,
    seq,
    sym,
    text_in_math,
    total,
)
from attnviz.lessons.cell_arithmetic import score_cell


def _allowed(result, i):
    """The keys (from 0) query i may see."""
    n = result.n
    return [j for j in range(n) if result.mask is None or bool(result.mask[i, j])]


def max_blank(result, i):
    """m_i, the largest scaled score of row i among the keys it may see."""
    keys = _allowed(result, i)
    cell = score_cell(result, i, keys[0])
    i1 = _ix(i)
    name = sym("m", i1)
    masked = result.mask is not None
    seen = " among the keys it may see" if masked else ""
    row = [float(result.scaled_scores[i, j]) for j in keys]
    return Blank(
        key=f"m_{i1}",
        name=name,
        expected=cell.row_max,
        tolerance=NEAR,
        hints=(
            (
                name,
                f" is the largest scaled score of row {i1}{seen}. Subtracting it before exp "
                "keeps every power of e at most 0, and changes no weight.",
            ),
            (
                "It is the largest of your answers for ",
                *[x for j in keys for x in (sym("S", i1, _ix(j), prime=True), ", ")][:-1],
                ".",
            ),
        ),
        working=seq(
            name, "=", max_of([num(v, PLACES) for v in row]), "=", num(cell.row_max, PLACES)
        ),
    )


def exp_blank(result, i, j):
    """exp(S'_{i,j} - m_i), the top of A_{i,j}."""
    cell = score_cell(result, i, j)
    i1, j1 = _ix(i), _ix(j)
    name = exp(seq(sym("S", i1, j1, prime=True), "-", sym("m", i1)))
    x = cell.logit_ij - cell.row_max
    return Blank(
        key=f"e_{i1}_{j1}",
        name=name,
        expected=cell.exp_term,
        tolerance=EXP,
        hints=(
            (
                f"Subtract the row's largest scaled score m_{i1} from ",
                sym("S", i1, j1, prime=True),
                ", then raise e to that power.",
            ),
            (
                "The power is ",
                seq(
                    sym("S", i1, j1, prime=True),
                    "-",
                    sym("m", i1),
                    "=",
                    num(cell.S_prime_ij, PLACES),
                    "-",
                    num(cell.row_max, PLACES, paren=True),
                    "=",
                    num(x, PLACES),
                ),
                ".",
            ),
            (
                "Use a calculator's eˣ key (e ≈ 2.71828); a power of at most 0 gives a number "
                "from 0 to 1.",
            ),
        ),
        working=seq(
            name,
            "=",
            exp(seq(num(cell.S_prime_ij, PLACES), "-", num(cell.row_max, PLACES, paren=True))),
            "=",
            exp(num(x, PLACES)),
            "=",
            num(cell.exp_term, PLACES),
        ),
    )


def _exp_terms(result, i):
    return [score_cell(result, i, j).exp_term for j in _allowed(result, i)]


def sum_blank(result, i):
    """The row's normaliser: the sum over j' of exp(S'_{i,j'} - m_i)."""
    keys = _allowed(result, i)
    cell = score_cell(result, i, keys[0])
    i1 = _ix(i)
    name = seq(total("j'"), exp(seq(sym("S", i1, "j'", prime=True), "-", sym("m", i1))))
    hidden = " it may see (a hidden key adds exp(−∞) = 0)" if result.mask is not None else ""
    return Blank(
        key=f"sum_{i1}",
        name=name,
        expected=cell.row_sum,
        tolerance=EXP,
        hints=(
            (f"Add exp(S′ − m_{i1}) over every key of row {i1}{hidden}.",),
            ("The terms are ", *_listed(_exp_terms(result, i)), "."),
        ),
        working=seq(
            name, "=", added(_exp_terms(result, i), PLACES), "=", num(cell.row_sum, PLACES)
        ),
    )


def weight_blank(result, i, j):
    """A_{i,j}: the softmax of row i at key j (0 where the mask hides key j)."""
    cell = score_cell(result, i, j)
    i1, j1 = _ix(i), _ix(j)
    name = sym("A", i1, j1)
    if not cell.allowed:
        return Blank(
            key=f"A_{i1}_{j1}",
            name=name,
            expected=cell.A_ij,
            tolerance=NEAR,
            hints=(
                (
                    f"The causal mask lets query {i1} see keys 1 to {i1} only; key {j1} comes "
                    "after it.",
                ),
                ("Before the softmax its score becomes −∞, and exp(−∞) = 0.",),
            ),
            working=seq(
                name,
                "=",
                num(cell.A_ij),
                text_in_math(f"  (masked: key {j1} comes after query {i1})"),
            ),
        )
    top = exp(seq(sym("S", i1, j1, prime=True), "-", sym("m", i1)))
    bottom = seq(total("j'"), exp(seq(sym("S", i1, "j'", prime=True), "-", sym("m", i1))))
    return Blank(
        key=f"A_{i1}_{j1}",
        name=name,
        expected=cell.A_ij,
        tolerance=NEAR,
        hints=(
            (seq(name, "=", frac(top, bottom)), ": the softmax of row ", f"{i1}", "."),
            ("The top is ", seq(top, "=", num(cell.exp_term, PLACES)), "."),
            (f"The bottom, the sum of row {i1}'s terms, is ", num(cell.row_sum, PLACES), "."),
        ),
        working=seq(
            name,
            "=",
            frac(num(cell.exp_term, PLACES), num(cell.row_sum, PLACES)),
            "=",
            num(cell.A_ij, PLACES),
        ),
    )
