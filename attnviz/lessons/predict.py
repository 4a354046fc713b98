"""Predict, then reveal: quiz questions built from the numbers on screen.

Every answer is read from the core's result, and a question is left out when its answer would
be ambiguous (a tie within TIE_TOLERANCE, a shape question whose options coincide), so the quiz
is right for any settings: masked rows, n = 1, d_k = 1, repeated tokens.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.errors import AttentionInputError
from attnviz.inputs import check_seed
from attnviz.lessons.common import TIE_TOLERANCE, reattend

_SAME = 1e-12  # max weights this close count as unchanged; between this and TIE_TOLERANCE: skip


@dataclass(frozen=True)
class Question:
    """One question: ``answer`` is one of ``options``; ``explanation`` quotes the real numbers.

    ``kind`` is argmax, row_sum, shape, scaled_vs_raw or scaling_effect; ``row`` (query) and
    ``col`` (key) say which cell it asks about, ``matrix`` which matrix (shape questions).
    """

    kind: str
    text: str
    options: tuple
    answer: str
    explanation: str
    row: int | None = None
    col: int | None = None
    matrix: str | None = None

    @property
    def answer_index(self):
        return self.options.index(self.answer)


def _weights(row, limit=6):
    shown = " + ".join(f"{a:.3f}" for a in row[:limit])
    return shown + (" + ..." if len(row) > limit else "")


def _argmax(r, labels, rng, allowed):
    A = r.attention
    if r.n < 2 or len(set(labels)) != len(labels):
        return None
    ordered = np.sort(A, axis=1)  # (n, n) ascending
    clear = (allowed >= 2) & (ordered[:, -1] - ordered[:, -2] > TIE_TOLERANCE)
    if not clear.any():
        return None
    i = int(rng.choice(np.flatnonzero(clear)))
    j, j2 = np.argsort(A[i])[::-1][:2]
    masked = " Masked keys get 0." if allowed[i] < r.n else ""
    return Question(
        "argmax",
        f"Which key does query '{labels[i]}' attend to most?",
        tuple(labels),
        labels[j],
        f"Row '{labels[i]}' of A puts {A[i, j]:.3f} on key '{labels[j]}', its largest weight "
        f"(next: '{labels[j2]}' with {A[i, j2]:.3f}). The softmax keeps the order of the "
        f"scaled scores, and S'[{i}, {j}] = {r.scaled_scores[i, j]:.4g} is the largest this "
        f"query may see.{masked}",
        row=i,
        col=int(j),
    )


def _row_sum(r, labels, rng, allowed):
    i = int(rng.integers(r.n))
    total = float(r.row_sums[i])
    options = ("0", "1") + ((str(r.n),) if r.n >= 2 else ()) + ("it depends on the scores",)
    if allowed[i] == 0 and total == 0:
        answer = "0"
        why = (
            f"The mask forbids query '{labels[i]}' every key, so all its logits are -inf; "
            "attnviz gives such a row all zeros (never NaN), so it sums to 0."
        )
    elif abs(total - 1) < 1e-6:
        answer = "1"
        why = (
            f"The softmax makes row '{labels[i]}' a probability distribution over the "
            f"{allowed[i]} key(s) it may attend to, whatever the scores: "
            f"{_weights(r.attention[i])} = {total:.6f}."
        )
    else:
        return None
    text = f"What does row '{labels[i]}' of A sum to?"
    return Question("row_sum", text, options, answer, why, row=i)


_SHAPES = {  # matrix: (how the question names it, the rule, rows, cols)
    "Q": ("Q = X W_Q", "(n x d_model) @ (d_model x d_k) -> n x d_k", "n", "d_k"),
    "K": ("K = X W_K", "(n x d_model) @ (d_model x d_k) -> n x d_k", "n", "d_k"),
    "V": ("V = X W_V", "(n x d_model) @ (d_model x d_v) -> n x d_v", "n", "d_v"),
    "S": ("the score matrix S = Q K^T", "(n x d_k) @ (d_k x n) -> n x n", "n", "n"),
    "A": ("the attention matrix A", "softmax keeps the shape of S', n x n", "n", "n"),
    "output": ("the output A V", "(n x n) @ (n x d_v) -> n x d_v", "n", "d_v"),
}


def _shape(r, rng):
    name = str(rng.choice(list(_SHAPES)))
    described, rule, rows, cols = _SHAPES[name]
    array = {"Q": r.Q, "K": r.K, "V": r.V, "S": r.scores, "A": r.attention, "output": r.output}
    dims = {"n": r.n, "d_model": r.d_model, "d_k": r.d_k, "d_v": r.d_v}
    answer = "{} x {}".format(*array[name].shape)
    pairs = [("n", "d_k"), ("d_k", "n"), ("n", "d_model"), ("n", "n"), ("n", "d_v")]
    pairs.append(("d_model", "d_k"))
    options = list(dict.fromkeys([answer] + [f"{dims[a]} x {dims[b]}" for a, b in pairs]))
    if len(options) < 2:
        return None
    options = tuple(options[k] for k in rng.permutation(len(options)))
    values = ", ".join(f"{k} = {v}" for k, v in dims.items())
    why = f"{described}: {rule} = {dims[rows]} x {dims[cols]} (here {values})."
    return Question("shape", f"What shape is {described}?", options, answer, why, matrix=name)


def _scaled_vs_raw(r, labels, rng):
    S, S1 = r.scores, r.scaled_scores
    equal = S == S1
    clear = equal | (np.abs(S - S1) > TIE_TOLERANCE * np.maximum(1, np.abs(S)))
    if not clear.any():
        return None
    i, j = (int(x) for x in np.argwhere(clear)[rng.integers(clear.sum())])
    options = ("S_ij", "S'_ij", "they are equal")
    answer = "they are equal" if equal[i, j] else ("S_ij" if S[i, j] > S1[i, j] else "S'_ij")
    root = np.sqrt(r.d_k)
    if not r.scale:
        reason = "Scaling is off, so S' = S."
    elif r.d_k == 1:
        reason = "sqrt(d_k) = sqrt(1) = 1, so dividing by it changes nothing."
    elif S[i, j] == 0:
        reason = "0 divided by anything is 0."
    elif S[i, j] > 0:
        reason = f"Dividing a positive score by sqrt(d_k) = {root:.4g} > 1 makes it smaller."
    else:
        reason = f"Dividing a negative score by sqrt(d_k) = {root:.4g} > 1 brings it closer to 0."
    return Question(
        "scaled_vs_raw",
        f"For query '{labels[i]}' and key '{labels[j]}', which is larger: the score S_ij or "
        "the scaled score S'_ij?",
        options,
        answer,
        f"S_ij = q_i . k_j = {S[i, j]:.4g} and S'_ij = {S1[i, j]:.4g}. {reason}",
        row=i,
        col=j,
    )


def _scaling_effect(r, labels, rng, allowed):
    try:
        other = reattend(r, scale=not r.scale).attention
    except AttentionInputError:  # the unscaled logits overflowed: no fair question
        return None
    before, after = r.attention.max(axis=1), other.max(axis=1)
    change = after - before
    clear = (allowed > 0) & ((np.abs(change) <= _SAME) | (np.abs(change) > TIE_TOLERANCE))
    if not clear.any():
        return None
    i = int(rng.choice(np.flatnonzero(clear)))
    answer = "stay the same" if abs(change[i]) <= _SAME else ("rise" if change[i] > 0 else "fall")
    turned = "off" if r.scale else "on"
    logits = r.logits[i][np.isfinite(r.logits[i])]
    if r.d_k == 1:
        reason = "sqrt(d_k) = sqrt(1) = 1, so scaling changes nothing"
    elif allowed[i] == 1:
        reason = "the query may attend to one key only, which gets weight 1 either way"
    elif np.ptp(logits) <= TIE_TOLERANCE * max(1, np.abs(logits).max()):
        reason = "its allowed logits are all equal, so the row is uniform either way"
    elif answer == "stay the same":
        reason = (
            "the gaps between its logits are so large that the row is one-hot to within "
            f"rounding, with scaling {'on' if r.scale else 'off'} and {turned}"
        )
    else:
        verb = "multiplies" if r.scale else "divides"
        effect = "sharper" if r.scale else "flatter"
        reason = (
            f"turning scaling {turned} {verb} its logits by sqrt(d_k) = {np.sqrt(r.d_k):.4g}, "
            f"so the gaps between them {'grow' if r.scale else 'shrink'} and the softmax is "
            f"{effect}"
        )
    return Question(
        "scaling_effect",
        f"If scaling were turned {turned}, would the largest weight in row '{labels[i]}' of A "
        "rise, fall or stay the same?",
        ("rise", "fall", "stay the same"),
        answer,
        f"It goes from {before[i]:.4f} to {after[i]:.4f}: {reason}.",
        row=i,
    )


def quiz(result, labels, seed=0):
    """Questions about an AttentionResult, each answered from its own numbers.

    ``labels`` (n,) name the tokens (unique labels, e.g. token_labels). Returns a list of
    Question, at most one of each kind, in the order shape, argmax, row_sum, scaled_vs_raw,
    scaling_effect; ``seed`` picks the rows, cells and matrix asked about.
    """
    r, labels = result, list(labels)
    if len(labels) != r.n:
        raise AttentionInputError(
            f"labels has {len(labels)} entries for {r.n} tokens: give one label per token"
        )
    rng = np.random.default_rng(check_seed(seed))
    allowed = np.full(r.n, r.n) if r.mask is None else r.mask.sum(axis=1)  # (n,) keys per query
    questions = [
        _shape(r, rng),
        _argmax(r, labels, rng, allowed),
        _row_sum(r, labels, rng, allowed),
        _scaled_vs_raw(r, labels, rng),
        _scaling_effect(r, labels, rng, allowed),
    ]
    return [q for q in questions if q is not None]
