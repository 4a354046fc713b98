"""A chart kept finished for every session (``serve.finish.kept_finished``) sends what the same
chart drawn anew (``ui.charts.draw``) sends, in every style and palette, and is made once."""

import json

import numpy as np
import plotly.io as pio
import pytest
import streamlit as st

from attnviz import lessons
from attnviz.charts.finish import COLOUR_BLIND, PALETTES, STANDARD, Display, finished
from attnviz.charts.head_grid import head_grid
from attnviz.charts.line_charts import variance_chart
from attnviz.serve.finish import kept_chart
from attnviz.ui.sidebar import DISPLAY_KEY
from tests.helpers import forget_kept

MADE = []


def _finished_chart(make, args, share, present, colours, title, inputs=()):
    return kept_chart(make, args, present, colours, share=share, title=title, inputs=inputs)


def _finished(fig, share, present, colours):
    return finished(fig, present, colours, share=share)


def variance_figure(d_k, seed):
    MADE.append((d_k, seed))
    var = lessons.dot_product_variance((1, 4, d_k), n_samples=200, seed=seed)
    return variance_chart(var, mark_d_k=d_k)


def sent(figure):
    """The JSON Streamlit sends for ``figure`` (a kept chart's dict, or a figure)."""
    spec = figure if isinstance(figure, dict) else figure.to_dict()
    return json.loads(pio.to_json(spec, validate=False))


@pytest.mark.parametrize("colours", sorted(PALETTES))
@pytest.mark.parametrize("present", [False, True])
@pytest.mark.parametrize("share", [1.0, 0.5])
def test_a_kept_chart_sends_what_a_new_one_sends(colours, present, share):
    forget_kept()
    MADE.clear()
    kept = _finished_chart(variance_figure, (16, 3), share, present, colours, None)
    again = _finished_chart(variance_figure, (16, 3), share, present, colours, None)
    new = _finished(variance_figure(16, 3), share, present, colours)
    assert again is kept and MADE == [(16, 3), (16, 3)]  # once kept, once for the comparison
    assert sent(kept[0]) == sent(new[0])
    assert kept[1:] == new[1:]  # heading, accessible name and text alternative


def test_each_setting_is_a_chart_of_its_own():
    forget_kept()
    a = _finished_chart(variance_figure, (16, 3), 1.0, False, "standard", None)
    b = _finished_chart(variance_figure, (16, 4), 1.0, False, "standard", None)
    assert sent(a[0]) != sent(b[0])


def grid_figure(labels, attention):
    MADE.append(attention.shape)
    return head_grid(attention, labels, labels)


def test_arrays_are_kept_by_their_digest():
    forget_kept()
    MADE.clear()
    A = np.full((2, 3, 3), 1 / 3)
    kept = _finished_chart(grid_figure, (("a", "b", "c"),), 1.0, False, "standard", None, (A,))
    same = _finished_chart(
        grid_figure, (("a", "b", "c"),), 1.0, False, "standard", None, (A.copy(),)
    )
    B = A.copy()
    B[0, 0] = (1, 0, 0)
    other = _finished_chart(grid_figure, (("a", "b", "c"),), 1.0, False, "standard", None, (B,))
    assert same is kept and len(MADE) == 2
    assert sent(other[0]) == sent(
        _finished(grid_figure(("a", "b", "c"), B), 1.0, False, "standard")[0]
    )


# No chart kept for every visitor reads the visitor's own projector mode or palette: each is
# made under the other session's state (as the sidebar keeps it), and must equal the chart made
# in its own session. At c5c35d3 the four kept below read the session instead of their keys.
SESSIONS = ((False, STANDARD), (True, COLOUR_BLIND))


def _in_session(present, palette):
    """Make this thread's session state say projector mode ``present`` and ``palette``."""
    st.session_state[DISPLAY_KEY] = Display(present, palette)


def _each_session_gets_its_own(kept_fn, make):
    """``make(present, palette)`` (a call of ``kept_fn``) made under the other session's
    state gives what it gives under its own."""
    made_elsewhere = {}
    kept_fn.forget()
    for (present, palette), other in zip(SESSIONS, reversed(SESSIONS), strict=True):
        _in_session(*other)
        made_elsewhere[present, palette] = make(present, palette)
    for present, palette in SESSIONS:
        kept_fn.forget()
        _in_session(present, palette)
        own = make(present, palette)
        mine = made_elsewhere[present, palette]
        assert sent(mine[0]) == sent(own[0]) and mine[1:] == own[1:]
    first, second = (made_elsewhere[s] for s in SESSIONS)
    assert sent(first[0]) != sent(second[0])  # the two sessions' charts do differ
    kept_fn.forget()


def test_the_random_heads_are_each_sessions_own():
    from attnviz.links.tiny_gpt import RunChoice
    from attnviz.serve.watch_a_head_learn import random_heads_finished

    choice = RunChoice()
    _each_session_gets_its_own(
        random_heads_finished,
        lambda present, palette: random_heads_finished(choice, present, palette),
    )


def test_the_real_models_grid_is_each_sessions_own(real_model):
    from attnviz.serve.real_model import MODEL, grid_finished

    model = MODEL.get()
    _each_session_gets_its_own(
        grid_finished,
        lambda present, palette: grid_finished(model, "the cat sat", present, palette),
    )


def test_the_chat_models_grid_and_bars_are_each_sessions_own(causal_lm):
    from attnviz.serve.inside_a_chat_model import bars_finished, chat_run, grid_finished

    _each_session_gets_its_own(
        grid_finished,
        lambda present, palette: grid_finished(causal_lm, "Hi there", present, palette),
    )
    run = chat_run(causal_lm, "Hi there")
    ids = tuple(int(i) for i in np.argsort(run.next_logits)[-3:])
    probs = np.array([0.5, 0.3, 0.2]).tobytes()

    def bars(present, palette):
        return bars_finished(causal_lm, "chat_next", ids, probs, "The next token", present, palette)

    _each_session_gets_its_own(bars_finished, bars)
