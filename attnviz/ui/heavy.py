"""The page's side of the heavy queue (``attnviz.serve.gate``): a progress bar "Waiting for
...: k ahead of you", drawn in the page of the session that waits; "Not started" in its place
when the visitor has their share of heavy work already; and who the visitor is
(``attnviz.ui.visitor``). Installed in the gate when ``attnviz.ui`` is imported."""

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attnviz.serve import gate
from attnviz.ui import visitor


def waiting_notice(what):
    """(``on_wait`` for ``FairGate.admit``, a function that clears the bar, ``refuse(busy)``
    that says a ``BusyError`` there and stops the page): a progress bar "Waiting for ...: k
    ahead of you" (cleared when its turn comes); (None, None, None) outside a script's thread
    (a benchmark's, a test's), where nothing can be drawn."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None, None, None
    slot = st.empty()

    def on_wait(ahead, first):
        done = 1 - ahead / first if first else 0.0
        slot.progress(
            min(max(done, 0.0), 1.0),
            text=f"Waiting for {what}: {ahead} ahead of you. This server runs at most "
            f"{gate.HEAVY.slots} heavy computations at a time, one visitor's after another's, "
            "so that one link cannot slow down everybody else.",
        )

    def refuse(busy):
        slot.warning(f"Not started ({what}): {busy} Then press R to run this page again.")
        st.stop()

    return on_wait, slot.empty, refuse


def page_visitor():
    """The visitor of this script's session, or None outside one (a benchmark's, a test's
    thread: the gate then counts each thread as a visitor of its own)."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return visitor.visitor_key()


gate.show_waiting_with(waiting_notice)
gate.visitor_with(page_visitor)
