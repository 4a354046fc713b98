"""Predict, then reveal: questions a student answers by reasoning, checked on the numbers.

Every question asks about a rule of attention, never about a number that the random weights
happen to give, so the right option does not change with the seed:

    shape            the shape of Q, K, V, S, A or the output (from the matmul rules)
    heads_shape      the shape of Concat(head_0, …, head_(h−1)) or W_O with h heads
    row_sum          a row of A sums to 1 (0 for a query that may see no key)
    shift            adding c to every score of a row leaves that row of A unchanged
    causal_row       under the causal mask, row 0 of A is [1, 0, …, 0]
    masked_weight    a masked weight is exactly 0, and the rest of its row is rescaled to sum 1
    scaling_spread   std(S') = std(S) / √d_k
    scaling_effect   turning scaling off raises a row's largest weight, on lowers it
    low_temperature  as T -> 0 a row becomes one-hot at its largest logit
    shuffle          shuffled tokens without positions give the same output rows, moved

Each answer is read from what the core computes for the current settings, and each question
carries the rows or table its reveal draws (``question``). A question that the settings
cannot ask (the causal row without the causal mask, a shuffle under a mask) or whose numbers
would not show its rule clearly (a tie, a row already one-hot to rounding) is left out.
"""

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.inputs import check_seed
from attnviz.lessons.predict.question import Bars, Given, Question, Table
from attnviz.lessons.predict.scaling_questions import scaling_effect, scaling_spread
from attnviz.lessons.predict.shape_questions import heads_shape, shape
from attnviz.lessons.predict.shuffle_question import shuffle
from attnviz.lessons.predict.softmax_questions import (
    causal_row,
    low_temperature,
    masked_weight,
    row_sum,
    shift,
)

# kind: its builder, in the order the questions are asked
BUILDERS = {
    "shape": shape,
    "heads_shape": heads_shape,
    "row_sum": row_sum,
    "shift": shift,
    "causal_row": causal_row,
    "masked_weight": masked_weight,
    "scaling_spread": scaling_spread,
    "scaling_effect": scaling_effect,
    "low_temperature": low_temperature,
    "shuffle": shuffle,
}
KINDS = tuple(BUILDERS)
KIND_NAMES = {  # kind: what it asks, in a few words (a report's column, never its code)
    "shape": "the shape of a matrix",
    "heads_shape": "a shape in multi-head attention",
    "row_sum": "what a row of A sums to",
    "shift": "one c added to a row's scores",
    "causal_row": "row 0 of A under the causal mask",
    "masked_weight": "a masked key's weight",
    "scaling_spread": "the spread of S′ against S",
    "scaling_effect": "scaling turned on or off",
    "low_temperature": "a row of A as T → 0",
    "shuffle": "shuffling the tokens",
}
# Asked whenever the settings allow them: they are about what the settings just switched on
SITUATIONAL = ("causal_row", "masked_weight", "shuffle")
MAX_QUESTIONS = 5


def quiz(result, labels, seed=0, *, P=None, max_questions=MAX_QUESTIONS):
    """Up to ``max_questions`` Questions about an AttentionResult, each answered from its numbers.

    ``labels`` (n,) name the tokens (e.g. token_labels); ``P`` (n, d_model) is the positional
    encoding that was added to X, or None (the shuffle question needs to know). The situational
    kinds that the settings allow come first, then other kinds drawn by ``seed``; the questions
    are returned in the order of KINDS, at most one of each. Deterministic in (result, seed):
    each kind draws its rows and cells from its own stream, ``default_rng([seed, kind index])``.
    """
    r, labels = result, list(labels)
    if len(labels) != r.n:
        raise AttentionInputError(
            f"labels has {len(labels)} entries for {r.n} tokens: give one label per token"
        )
    seed = check_seed(seed)
    if P is not None and np.shape(P) != r.X.shape:
        raise AttentionInputError(
            f"P has shape {np.shape(P)} but X has shape {r.X.shape}: pass the positional "
            "encodings that were added to X, or None"
        )
    allowed = np.full(r.n, r.n) if r.mask is None else r.mask.sum(axis=1)  # (n,) keys per query
    given = Given(r, labels, allowed, None if P is None else np.asarray(P, dtype=float))
    others = [kind for kind in KINDS if kind not in SITUATIONAL]
    drawn = np.random.default_rng(seed).permutation(len(others))
    order = [*SITUATIONAL, *(others[k] for k in drawn)]
    found = {}
    for kind in order:
        if len(found) >= max_questions:
            break
        question = BUILDERS[kind](given, np.random.default_rng([seed, KINDS.index(kind)]))
        if question is not None:
            found[kind] = question
    return [found[kind] for kind in KINDS if kind in found]


__all__ = ["KINDS", "MAX_QUESTIONS", "SITUATIONAL", "Bars", "Question", "Table", "quiz"]
