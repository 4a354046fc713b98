"""The "sketch the row" widget and its views, for the Predict-then-reveal page and the
Classroom's phones and projector.

The widget (``sketch_input``) is a Plotly chart drawn with ``on_select``: one row per key, a
bar per row, and a nearly transparent marker at each (level, key) that reports a tap
(DESIGN.md: scatter markers report clicks; heatmaps and bars do not). Chosen over a custom
component (``st.components.v2`` with JS for dragging) because taps on such markers already
work on touch phones in this app (tests/browser/test_phone.py), need no script of ours, and
keep the chart's text alternative and the projector's sizes. A tap sets that key's bar to the
level tapped; each row is 48 px high and each level about 48 px wide on a 390-px phone.

Session state holds the levels (a tuple of small ints) and a tap counter (the chart's key
changes after each tap, so the next tap is a fresh selection); never arrays.
"""

import functools

import streamlit as st

from attnviz.charts.sketch import distance_figure, overlay_figure, sketch_figure
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.lessons import sketch
from attnviz.limits import SKETCH_LEVELS
from attnviz.ui.charts import draw
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape

NO_MODEBAR = {"displayModeBar": False}  # on a phone the toolbar covers the chart's title
# The tap chart takes no double tap: a second tap within doubleClickDelay (Plotly's default,
# 500 ms in the bundle Streamlit ships) is a double click, on which Streamlit clears the chart's
# selection, so a quick second tap (after one on a grey row, or on a chart a slow run has not
# replaced yet) was lost or undone
TAP_CONFIG = {**NO_MODEBAR, "doubleClickDelay": 0}
LEVELS = "attnviz.sketch.levels."  # + the widget's key: the levels set so far
TAPS = "attnviz.sketch.taps."  # + the widget's key: taps so far (the chart's key changes)


def text_px():
    return PRESENT_TEXT_PX if is_present() else TEXT_PX


def levels_of(key, allowed):
    """The levels the widget ``key`` holds now ("same for all" until a tap)."""
    levels = st.session_state.get(LEVELS + key)
    if levels is None or len(levels) != len(allowed):
        return sketch.even_levels(allowed)
    return levels


def _tap(key, allowed):
    """on_select of the sketch: the tapped (level, key) sets that key's bar."""
    chart = st.session_state.get(f"{key}_chart_{st.session_state.get(TAPS + key, 0)}")
    points = ((chart or {}).get("selection") or {}).get("points") or []
    levels = list(levels_of(key, allowed))
    for point in points:
        x, y = point.get("x"), point.get("y")
        if x is None or y is None:
            continue
        j, level = round(y), round(x)
        if 0 <= j < len(levels) and allowed[j] and 0 <= level <= SKETCH_LEVELS:
            levels[j] = level
    st.session_state[LEVELS + key] = tuple(levels)
    st.session_state[TAPS + key] = st.session_state.get(TAPS + key, 0) + 1


def _even(key, allowed):
    st.session_state[LEVELS + key] = sketch.even_levels(allowed)
    st.session_state[TAPS + key] = st.session_state.get(TAPS + key, 0) + 1


def forget(key):
    """Forget widget ``key``'s sketch (a new question)."""
    st.session_state.pop(LEVELS + key, None)


def weights_line(labels, weights):
    """ "the 0.20 · cat 0.40 · …": the renormalised row, as markdown (labels escaped)."""
    return " · ".join(
        f"{md_escape(label)} **{w:.2f}**" for label, w in zip(labels, weights, strict=True)
    )


def sketch_input(question, key, *, locked=None, submit=None, submit_label="Submit"):
    """The sketch of ``question`` (a SketchQuestion) under ``key``: the tap chart, the live
    line of renormalised weights, "Same for all" and ``submit_label``. ``submit`` is a button
    callback taking the levels; ``locked`` the levels once submitted (the chart is then drawn
    without taps or buttons). Returns the levels shown (a tuple of ints)."""
    q = question
    allowed = list(q.allowed)
    levels = tuple(locked) if locked is not None else levels_of(key, allowed)
    try:
        w = sketch.weights(levels, allowed)
    except sketch.SketchError:
        w = None
    shown = [0.0] * q.n if w is None else list(w)
    title = "Your sketch (locked)" if locked is not None else "Your sketch: tap to set each bar"
    fig = sketch_figure(
        q.labels, levels, shown, allowed, text_px=text_px(), title=title, taps=locked is None,
        beside=is_present(),
    )  # fmt: skip
    words = "\n".join(
        f"key {label}: bar {level} of {SKETCH_LEVELS}, weight {x:.2f}"
        + ("" if ok else " (masked: fixed at 0)")
        for label, level, x, ok in zip(q.labels, levels, shown, allowed, strict=True)
    )
    taps = {}
    if locked is None:
        taps = dict(on_select=functools.partial(_tap, key, allowed), selection_mode="points")
    chart_key = f"{key}_chart_{st.session_state.get(TAPS + key, 0)}"
    draw(
        fig,
        chart_key if locked is None else f"{key}_locked",
        share=None,
        title="Your sketch",
        words=words,
        config=TAP_CONFIG,
        theme=None,
        width="stretch",
        **taps,
    )
    if w is None:
        st.warning("Every bar is at 0: raise at least one bar (a row of A sums to 1).", icon="📏")
    else:
        st.markdown(
            "The bars are renormalised to sum to 1, as a row of A does: "
            + weights_line(q.labels, w)
        )
    if not all(allowed):
        st.caption("Grey keys are hidden by the causal mask: their weight is 0, fixed.")
    if locked is not None:
        return levels
    left, right = st.columns(2)
    left.button(
        "Same for all", key=f"{key}_even", on_click=_even, args=(key, allowed), width="stretch"
    )
    right.button(
        submit_label,
        key=f"{key}_submit",
        type="primary",
        disabled=w is None or submit is None,
        on_click=submit,
        args=(levels,),
        width="stretch",
    )
    return levels


def clue_line(question):
    """What the student is given, as one markdown line (labels escaped)."""
    c = question.clue
    pairs = " · ".join(
        f"{md_escape(label)} {v:.2f}" for label, v in zip(c.labels, c.values, strict=True)
    )
    return f"{md_escape(c.title)}: {pairs}."


def own_result(question, levels, key):
    """A phone's own sketch over the true row, and its distance (chart ``key``)."""
    q = question
    row = sketch.weights(levels, q.allowed)
    fig = overlay_figure(
        q.labels,
        row,
        q.truth,
        name="your sketch",
        title="Your sketch and the true row",
        text_px=text_px(),
        allowed=list(q.allowed),
    )
    words = "\n".join(
        f"key {label}: you {p:.2f}, true {t:.2f}"
        for label, p, t in zip(q.labels, row, q.truth, strict=True)
    )
    draw(fig, key, share=None, words=words, config=NO_MODEBAR, theme=None, width="stretch")
    st.markdown(md_escape(sketch.own_sentence(row, q.truth, q.labels)))


def class_result(question, summary, key):
    """The class's mean per key with its spread, the true row over it, the sentence, and the
    distance histogram (chart keys ``{key}_mean``, ``{key}_dist``)."""
    q, s = question, summary
    st.markdown(f"**{md_escape(sketch.sentence(s))}**")
    fig = overlay_figure(
        q.labels,
        s.mean,
        q.truth,
        spread=s.spread,
        title="The class's prediction and the true row",
        text_px=text_px(),
        allowed=list(q.allowed),
    )
    words = "\n".join(sketch.key_lines(s))
    draw(
        fig, f"{key}_mean", share=None, words=words, config=NO_MODEBAR, theme=None, width="stretch"
    )
    fig = distance_figure(s.histogram, s.distances, text_px=text_px())
    said = sketch.distance_sentence(s)
    st.caption(md_escape(said))
    draw(fig, f"{key}_dist", share=None, words=said, config=NO_MODEBAR, theme=None, width="stretch")
