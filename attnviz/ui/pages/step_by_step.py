"""The Step by step page: its one-line summary of the settings, and the every-step downloads.

The step matrices and the inspectors it draws are shared with Your own numbers:
``attnviz.ui.steps`` and ``attnviz.ui.inspectors``.
"""

import streamlit as st

from attnviz.export import all_steps_json, all_steps_npz


def settings_caption(result, settings):
    """The sizes and settings the page was computed with, in one sentence."""
    r, s = result, settings
    return (
        f"{r.n} tokens, d_model = {r.d_model}, d_k = {r.d_k}, d_v = {r.d_v}, seed {s.seed}, "
        f"mask {s.mask}, scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}. Change "
        "any of them in the sidebar and every number below is recomputed. Hover a cell for its "
        "exact value."
    )


def downloads(example):
    """Buttons that download every step at once, with the settings that made it."""
    st.header("Download the numbers")
    st.caption("Each chart above has its own CSV button; Plotly's toolbar saves a PNG.")
    c1, c2 = st.columns(2)
    c1.download_button(
        "⬇ Every step (JSON, with the settings)",
        data=lambda: all_steps_json(example),
        file_name="attnviz-steps.json",
        mime="application/json",
        key="download_json",
        on_click="ignore",
    )
    c2.download_button(
        "⬇ Every step (NumPy .npz)",
        data=lambda: all_steps_npz(example),
        file_name="attnviz-steps.npz",
        mime="application/octet-stream",
        key="download_npz",
        on_click="ignore",
    )
