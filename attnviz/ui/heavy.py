"""One heavy link cannot stall the class: heavy work goes through one fair queue.

A heavy computation (a tiny GPT's training, a max-size example, the real model's forward pass,
the chat model's generation, a class set's PDF) runs through ``HEAVY``, the server's
``attnviz.fair_queue.FairGate``: a lane of ``limits.HEAVY_AT_ONCE`` slots (one core fewer than
the server has, at least one) for large work, a lane of ``HEAVY_SMALL_AT_ONCE`` for short work
(at most ``SMALL_HEAVY_SECONDS``), visitors served in turn, at most ``HEAVY_PER_VISITOR`` jobs
each. A waiting page says "waiting: k ahead of you" with a progress bar (``waiting_notice``);
one more job than a visitor may have is refused with a warning. Everything else (a student's
change at classroom sizes, every cache hit) never waits here. ``gated(compute, what, cost)``
runs through it.
"""

import threading

from attnviz.fair_queue import LARGE, SMALL, BusyError, FairGate
from attnviz.limits import (
    HEAVY_AT_ONCE,
    HEAVY_PER_VISITOR,
    HEAVY_SMALL_AT_ONCE,
    SMALL_HEAVY_SECONDS,
)

HEAVY = FairGate(
    {LARGE: HEAVY_AT_ONCE, SMALL: HEAVY_SMALL_AT_ONCE},
    per_visitor=HEAVY_PER_VISITOR,
    small_seconds=SMALL_HEAVY_SECONDS,
)


def waiting_notice(what):
    """An ``on_wait`` for ``FairGate.admit`` that draws, in the page of the session waiting, a
    progress bar "Waiting: k ahead of you" (cleared when its turn comes); None outside a
    script's thread (a benchmark's, a test's), where nothing can be drawn."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return None, None
    slot = st.empty()

    def on_wait(ahead, first):
        done = 1 - ahead / first if first else 0.0
        slot.progress(
            min(max(done, 0.0), 1.0),
            text=f"Waiting for {what}: {ahead} ahead of you. This server runs at most "
            f"{HEAVY.slots} heavy computations at a time, one visitor's after another's, so "
            "that one link cannot slow down everybody else.",
        )

    return on_wait, slot


def gated(compute, what="a large computation", cost=None):
    """``compute()`` once a slot of its lane is free, with the waiting notice meanwhile.

    ``what`` may be (what, cost): ``cost`` is the work's estimated seconds (None: unknown, the
    large lane). In a page, a visitor who already has their share of heavy work waiting or
    running is told so and the page stops there. Outside a page (a benchmark's or a test's
    thread) each thread is a visitor of its own."""
    if isinstance(what, tuple):
        what, cost = what
    on_wait, slot = waiting_notice(what)
    visitor = f"no page, thread {threading.get_ident()}" if slot is None else _visitor()
    try:
        with HEAVY.admit(visitor, cost=cost, what=what, on_wait=on_wait):
            if slot is not None:
                slot.empty()
            return compute()
    except BusyError as busy:
        if slot is None:
            raise
        import streamlit as st

        slot.warning(f"Not started ({what}): {busy} Then press R to run this page again.")
        st.stop()
    except BaseException:
        if slot is not None:
            slot.empty()
        raise


def deferred(compute, what, cost=None):
    """A download button's ``data``: a callable that Streamlit calls on click, in a thread of
    its own (no page to draw a notice in), and that computes ``compute()`` in this visitor's
    turn of the heavy queue. The visitor is read now, in the page's run. A visitor who has
    their share of heavy work already gets Streamlit's "Failed to generate file" instead."""
    visitor = _visitor()

    def in_turn():
        with HEAVY.admit(visitor, cost=cost, what=what):
            return compute()

    return in_turn


def _visitor():
    from attnviz.ui.visitor import visitor_key

    return visitor_key()
