"""Change one number of X and watch it spread: which cells of every step change, and why.

Editing X_ic (token i, embedding dimension c) changes, step by step:

    Q, K, V   row i only: row i of XW depends on row i of X alone
    S, S'     row i (query q_i changed) and column i (key k_i changed)
    A         every row that may see key i (all rows without a mask: the softmax of row j
              now sees a changed column i, so the whole row is renormalised), and row i
    output    the rows of A that changed, and every row that gives weight to value v_i

``edit_embedding`` recomputes attention with the one entry changed and ``changed_cells``
compares two results step by step; ``spread_lines`` puts what changed into words. The cells
that *may* change are ``reachable_cells``: what changes is always among them, and for random
weights it is all of them.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.lessons.common import reattend

# A cell "changed" when it moved by more than this, relative to max(1, the step's largest
# |entry|): far above floating-point rounding (about 1e-16), far below what any edit shows.
CHANGE_TOLERANCE = 1e-9
# The steps compared, in the order of the computation: (AttentionResult field, name on screen)
STEPS = (
    ("X", "X"),
    ("Q", "Q"),
    ("K", "K"),
    ("V", "V"),
    ("scores", "S"),
    ("scaled_scores", "S'"),
    ("attention", "A"),
    ("output", "the output"),
)


@dataclass(frozen=True)
class Edit:
    """X[i, c] set to ``value``: token (row) i, embedding dimension (column) c."""

    i: int
    c: int
    value: float


def edit_embedding(result, edit):
    """Every step of attention again with X[edit.i, edit.c] = edit.value; the weights, biases,
    mask, scaling and temperature of ``result`` unchanged. -> AttentionResult.

    Raises AttentionInputError for a cell outside X or a value that is not finite.
    """
    n, d_model = result.X.shape
    if not (0 <= edit.i < n and 0 <= edit.c < d_model):
        raise AttentionInputError(
            f"X has {n} rows and {d_model} columns: there is no entry ({edit.i}, {edit.c})"
        )
    if not np.isfinite(edit.value):
        raise AttentionInputError(f"the new value of X[{edit.i}, {edit.c}] must be a number")
    X = np.array(result.X)  # a writeable copy, (n, d_model)
    X[edit.i, edit.c] = edit.value
    return reattend(result, X=X)


def changed(new, old, tol=CHANGE_TOLERANCE):
    """(rows, cols) bool: where ``new`` differs from ``old`` by more than ``tol`` times
    max(1, the largest finite |old|); two -inf (masked) cells are equal."""
    new, old = np.asarray(new, dtype=float), np.asarray(old, dtype=float)
    finite = np.isfinite(old) & np.isfinite(new)
    largest = float(np.max(np.abs(old[finite]), initial=0.0))
    difference = np.subtract(new, old, out=np.zeros_like(old), where=finite)
    moved = np.abs(difference) > tol * max(1.0, largest)
    return moved | (~finite & (new != old))


def changed_cells(before, after, tol=CHANGE_TOLERANCE):
    """{field: (rows, cols) bool} for every step in STEPS: the cells that changed."""
    return {
        field: changed(getattr(after, field), getattr(before, field), tol) for field, _ in STEPS
    }


def reachable_cells(result, i, c):
    """{field: (rows, cols) bool}: the cells an edit of X[i, c] can change, by the formula
    alone (whatever the numbers). See the module's docstring."""
    n = result.n
    sees = np.ones((n, n), dtype=bool) if result.mask is None else np.asarray(result.mask)
    rows_of = lambda width, rows: np.repeat(rows[:, None], width, axis=1)  # noqa: E731
    row_i = np.arange(n) == i
    A_rows = sees[:, i] | row_i  # rows that see the changed key, and the changed query
    out_rows = A_rows  # row j of AV changes with row j of A, or through A_ji v_i
    x = np.zeros(result.X.shape, dtype=bool)
    x[i, c] = True
    S = row_i[:, None] | row_i[None, :]
    return {
        "X": x,
        "Q": rows_of(result.d_k, row_i),
        "K": rows_of(result.d_k, row_i),
        "V": rows_of(result.d_v, row_i),
        "scores": S,
        "scaled_scores": S,
        "attention": rows_of(n, A_rows) & sees,  # a masked weight is 0 before and after
        "output": rows_of(result.d_v, out_rows),
    }


def _rows_text(rows, labels):
    """ "row 2 (cat)", "rows 0 to 5", "rows 1, 3 (the, on)"."""
    rows = list(rows)
    if len(rows) == 1:
        return f"row {rows[0]} ({labels[rows[0]]})"
    if rows == list(range(rows[0], rows[-1] + 1)):
        return f"rows {rows[0]} to {rows[-1]}"
    return "rows " + ", ".join(str(r) for r in rows)


@dataclass(frozen=True)
class Spread:
    """One edit of X and what it changed: ``after`` is every step with the edit; ``cells``
    {field: (rows, cols) bool} the cells that changed; ``lines`` {field: sentence} why."""

    edit: Edit
    before: object  # AttentionResult without the edit
    after: object  # AttentionResult with it
    cells: dict
    lines: dict


def spread_of_edit(before, edit, labels):
    """The Spread of ``edit`` on ``before`` (an AttentionResult); ``labels`` (n,) name the rows."""
    after = edit_embedding(before, edit)
    cells = changed_cells(before, after)
    return Spread(edit, before, after, cells, spread_lines(before, after, edit, labels, cells))


def spread_lines(before, after, edit, labels, cells=None):
    """{field: one sentence}: what changed in each step after ``edit``, and why; computed from
    the two results (counts of cells that moved by more than CHANGE_TOLERANCE)."""
    cells = changed_cells(before, after) if cells is None else cells
    i, token = edit.i, labels[edit.i]
    lines = {}
    for field, name in STEPS:
        moved = cells[field]
        count = int(moved.sum())
        if count == 0:
            lines[field] = f"Nothing in {name} changed beyond rounding."
            continue
        rows = np.flatnonzero(moved.any(axis=1))
        where = f"{count} of {moved.size} cells changed, in {_rows_text(rows, labels)}"
        if field == "X":
            lines[field] = (
                f"X[{i}, {edit.c}] went from {before.X[i, edit.c]:.6g} to {edit.value:.6g}: "
                f"one number of the embedding of {token}."
            )
        elif field in ("Q", "K", "V"):
            role = {"Q": "query", "K": "key", "V": "value"}[field]
            lines[field] = (
                f"{name} = XW_{field}: row {i} of {name}, the {role} of {token}, is the only "
                f"row made from row {i} of X ({where})."
            )
            if count < moved.shape[1]:  # entry (i, k) moves by the change times (W)_ck
                lines[field] += (
                    f" Entry ({i}, k) moves by the change times (W_{field})_{edit.c},k, so "
                    f"only the columns k where row {edit.c} of W_{field} is not 0 moved."
                )
        elif field in ("scores", "scaled_scores"):
            column = bool(moved[:, i].sum() > moved[i, i])
            lines[field] = (
                f"{name}: row {i} changed because the query of {token} changed"
                + (
                    f"; column {i} because its key changed, so every query's comparison with "
                    "that key is new"
                    if column
                    else ""
                )
                + f" ({count} of {moved.size} cells)."
            )
        elif field == "attention":
            lines[field] = (
                f"A: row j of A is made from row j of S' alone, and its softmax divides by the "
                f"sum of the whole row, so a row whose column {i} (the key of {token}) or whose "
                f"query changed is renormalised as a whole ({where})."
                + (
                    f" Rows that may not see key {i} (the mask) keep their weights."
                    if before.mask is not None and not before.mask[:, i].all()
                    else ""
                )
            )
        else:
            lines[field] = (
                f"Output = AV: row j mixes the values with row j of A, so it changes with that "
                f"row and with the value of {token} it takes in ({where})."
            )
    return lines


# --- how much: after - before -------------------------------------------------------------------
DELTA_STEPS = ("scaled_scores", "attention", "output")  # the steps drawn with a Δ heatmap
TOP_MOVES = 3  # the largest moves named in the sentence under a Δ heatmap


def delta(before, after, field):
    """after - before of one step, (rows, cols); 0 where both are -inf (a masked logit)."""
    new = np.asarray(getattr(after, field), dtype=float)
    old = np.asarray(getattr(before, field), dtype=float)
    both = np.isfinite(new) & np.isfinite(old)
    return np.subtract(new, old, out=np.zeros_like(old), where=both)


def largest_moves(D, k=TOP_MOVES):
    """The ``k`` cells of D (rows, cols) that moved most: [(row, col, Δ)], largest |Δ| first
    (ties in row-major order)."""
    flat = np.argsort(-np.abs(D), axis=None, kind="stable")[:k]
    rows, cols = np.unravel_index(flat, D.shape)
    return [(int(r), int(c), float(D[r, c])) for r, c in zip(rows, cols, strict=True)]


def delta_line(found, field, labels):
    """One sentence on how much ``field`` moved under the edit of ``found`` (a Spread), which
    cells moved most and why; every number computed from after - before."""
    before, after, i = found.before, found.after, found.edit.i
    D = delta(before, after, field)
    name = "Output" if field == "output" else dict(STEPS)[field]
    moves = [(r, c, d) for r, c, d in largest_moves(D) if d != 0]
    if not moves:
        return f"Δ {name}: nothing moved."
    cols = labels if field != "output" else [str(c) for c in range(D.shape[1])]
    cells = "; ".join(f"({r}, {c}) = ({labels[r]}, {cols[c]}) by {d:+.3g}" for r, c, d in moves)
    text = f"Δ {name} = after − before: the largest moves are at {cells}."
    if field == "scaled_scores":
        off = [r for r, c, _ in moves if r != i and c != i]
        return text + (
            f" Every one is in row {i} (the query of {labels[i]}) or column {i} (its key): "
            "no other score involves the token changed."
            if not off
            else ""
        )
    if field == "attention":
        A = np.asarray(before.attention)
        rows = [j for j in range(before.n) if j != i and np.abs(D[j]).max() > 0]
        at_key = [j for j in rows if np.argmax(np.abs(D[j])) == i]
        if rows and len(at_key) == len(rows):  # always, when only S'_ji changed in row j
            j = max(rows, key=lambda r: np.abs(D[r]).max())
            text += (
                f" In every other row j that sees key {i} ({labels[i]}), only the score with that "
                "key changed, so "
                f"the weight A_j{i} moved most and the rest of the row moved together the other "
                "way, each weight by the same factor, to keep the sum at 1: in row "
                f"{j} ({labels[j]}) A_{j}{i} went from {A[j, i]:.3f} to "
                f"{after.attention[j, i]:.3f}, and every other weight was multiplied by "
                f"{(1 - after.attention[j, i]) / max(1 - A[j, i], 1e-300):.4f}."
            )
        return text
    if field == "output":
        r = moves[0][0]
        from_weights = (after.attention[r] - before.attention[r]) @ np.asarray(before.V)  # (d_v,)
        from_value = after.attention[r, i] * (after.V[i] - before.V[i])  # (d_v,)
        return text + (
            f" Row {r} ({labels[r]}) is Σ_k A_{r}k v_k: it moved through its new weights "
            f"(ΔA_{r} · V, largest entry {np.abs(from_weights).max():.3g}) and through the new "
            f"value of {labels[i]} (A'_{r}{i} · Δv_{i}, largest entry "
            f"{np.abs(from_value).max():.3g}); the two add up to its move."
        )
    return text
