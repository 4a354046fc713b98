"""The "sketch the row" question: on an example, the row of A for one query, as the lecturer
(or the Predict-then-reveal page) asks it, with the variant asked:

    plain       the example with no mask, scaling on and T = 1
    causal      ... with the causal mask (keys after the query are hidden, fixed at 0)
    cold        ... at temperature T = 0.2
    unscaled    ... at d_k = 64 without scaling by 1/√d_k

The true row is the core's: ``settings.compute`` on the example with the variant's settings.
A room stores the question as its ``kind``, "sketch:<variant>:<query>" (``sketch_kind``), and
the phones' answers as levels (``lessons.sketch``). No Streamlit.
"""

from dataclasses import dataclass, replace

import numpy as np

from attnviz.lessons import sketch as numbers
from attnviz.lessons.predict.question import Bars, bars
from attnviz.lessons.sketch import SketchError
from attnviz.limits import MAX_ROOM_TOKENS
from attnviz.settings import compute

PREFIX = "sketch:"
COLD_T = 0.2
WIDE_D_K = 64
VARIANTS = {  # name: what the question says
    "plain": "no mask, scaling on, T = 1",
    "causal": "with the causal mask",
    "cold": f"at temperature T = {COLD_T:g}",
    "unscaled": f"at d_k = {WIDE_D_K} without scaling by 1/√d_k",
}


@dataclass(frozen=True)
class SketchQuestion:
    """Sketch row ``query`` of A under ``variant``. Shapes: labels, allowed, truth (n,):
    the keys' labels, which keys the query may see, the core's row of A. ``clue`` is what the
    student is given (a row the prediction starts from). Text is plain: escape before markdown."""

    kind: str
    variant: str
    query: int
    text: str
    labels: tuple
    allowed: tuple
    truth: tuple
    clue: Bars

    @property
    def n(self):
        return len(self.labels)


def sketch_kind(variant, query):
    """The room's ``kind`` for this question: "sketch:causal:3"."""
    return f"{PREFIX}{variant}:{int(query)}"


def is_sketch(kind):
    return isinstance(kind, str) and kind.startswith(PREFIX)


def read_kind(kind):
    """(variant, query) from ``sketch_kind``'s text, or None when it is not one."""
    if not is_sketch(kind):
        return None
    variant, _, query = kind[len(PREFIX) :].partition(":")
    if variant not in VARIANTS or not query.isdigit() or int(query) >= MAX_ROOM_TOKENS:
        return None
    return variant, int(query)


def variant_settings(settings, variant):
    """The Settings whose A the question asks about: the example with no mask, scaling on and
    T = 1, then the variant's one change."""
    plain = replace(settings, mask="none", scale=True, temperature=1.0)
    return {
        "plain": plain,
        "causal": replace(plain, mask="causal"),
        "cold": replace(plain, temperature=COLD_T),
        "unscaled": replace(plain, d_k=WIDE_D_K, scale=False),
    }[variant]


def _clue(settings, variant, query, labels):
    """What the student starts from, on the plain ``settings``: the scaled scores of the row
    (plain), or the row of A without the variant's change (the others), computed by the core."""
    if variant == "plain":
        r = compute(settings).result
        return bars(
            f"The scores of query {labels[query]}, scaled (S / √d_k)",
            labels,
            r.scaled_scores[query],
            "S'_ij",
        )
    before = replace(settings, d_k=WIDE_D_K) if variant == "unscaled" else settings
    r = compute(before).result
    what = {
        "causal": "without the mask",
        "cold": "at T = 1",
        "unscaled": f"at d_k = {WIDE_D_K} with scaling",
    }[variant]
    return bars(f"Row {labels[query]} of A {what}", labels, r.attention[query])


def sketch_question(settings, variant, query):
    """The SketchQuestion for row ``query`` of the example of ``settings`` under ``variant``;
    SketchError when it cannot be asked (a query past the tokens, an unknown variant)."""
    if variant not in VARIANTS:
        raise SketchError(f"A sketch asks one of {', '.join(VARIANTS)} (got {variant!r}).")
    asked = variant_settings(settings, variant)
    example = compute(asked)
    r, labels = example.result, tuple(example.labels)
    if not 0 <= query < r.n or r.n > MAX_ROOM_TOKENS or r.n < 2:
        raise SketchError(
            f"A sketch asks about one of the example's 2 to {MAX_ROOM_TOKENS} tokens "
            f"(query {query} of {r.n})."
        )
    allowed = tuple(bool(v) for v in (r.mask[query] if r.mask is not None else [True] * r.n))
    text = f"Sketch the row of A for query {labels[query]} ({VARIANTS[variant]})."
    return SketchQuestion(
        kind=sketch_kind(variant, query),
        variant=variant,
        query=int(query),
        text=text,
        labels=labels,
        allowed=allowed,
        truth=tuple(float(v) for v in r.attention[query]),
        clue=_clue(variant_settings(settings, "plain"), variant, query, labels),
    )


def class_summary(question, sketches):
    """The lessons.sketch.Summary of ``sketches`` (levels, one tuple a phone) against the
    question's true row."""
    rows = numbers.class_rows(sketches, question.allowed)
    return numbers.summary(rows, question.truth, question.labels)


def report(question, sketches):
    """This question's part of the lecturer's report (CSV), as two plain tables, each
    (columns, rows): per key the class's mean and spread and the true weight; per tenth of
    distance the phones in it."""
    keys, bins = numbers.report_tables(class_summary(question, sketches))
    return (numbers.KEY_COLUMNS, keys), (numbers.BIN_COLUMNS, bins)


def record(settings, kind, sketches):
    """The numbers of sketch question ``kind`` on the example of ``settings`` for the room's
    report (plain values, no student id), or None when ``kind`` is not an askable sketch:
    "text", "answered" (the phones that sketched), "labels", "mean" (the class's mean per
    key), "truth" (the row), "median_distance" (None without a sketch) and "picked_largest"
    (the phones whose largest weight is on one of the row's largest keys)."""
    asked = read_kind(kind)
    if asked is None:
        return None
    try:
        question = sketch_question(settings, *asked)
    except SketchError:
        return None
    s = class_summary(question, sketches)
    median = round(float(np.median(s.distances)), 4) if s.phones else None
    return {
        "text": question.text,
        "answered": s.phones,
        "labels": list(question.labels),
        "mean": [round(float(v), 4) for v in s.mean],
        "truth": [round(float(v), 4) for v in s.truth],
        "median_distance": median,
        "picked_largest": s.right_largest,
    }
