"""The page's side of a wait for a heavy slot (``attnviz.serve.gate``): a progress bar
"Waiting: k ahead of you", drawn in the page of the session that waits. Installed in the gate
when ``attnviz.ui`` is imported."""

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attnviz.serve import gate


def waiting_notice(what):
    """(``on_wait`` for ``Gate.admit``, a function that clears the bar): a progress bar
    "Waiting: k ahead of you" (cleared when its turn comes); (None, None) outside a script's
    thread (a benchmark's, a test's), where nothing can be drawn."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None, None
    slot = st.empty()

    def on_wait(ahead, first):
        done = 1 - ahead / first if first else 0.0
        slots = gate.HEAVY.slots
        slot.progress(
            min(max(done, 0.0), 1.0),
            text=f"Waiting: {ahead} ahead of you. This server runs {slots} heavy "
            f"computation{'s' * (slots > 1)} ({what}) at a time, so that one "
            "link cannot slow down everybody else.",
        )

    return on_wait, slot.empty


gate.show_waiting_with(waiting_notice)
