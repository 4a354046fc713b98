"""An attention matrix A on a page, seen two ways: as a heatmap or as token lines.

``show_attention`` draws a switch ("Heatmap" / "Token lines", kept per chart for the session)
and then one of the two views in the same place, never both:

* Heatmap: ``show_matrix`` as before, returning the cell just clicked.
* Token lines (``attnviz.charts.token_lines``): a click on a token's marker shows only its
  lines; a click on it again, or "Show all lines", brings every line back. Plotly has no way to
  do this on hover without JavaScript of our own, so the click makes a rerun: a callback reads
  the token from the chart's selection before the page redraws.

State, per chart ``key``: the switch under ``{key}_view``, the lines chart under
``{key}_lines``, the token shown alone in ``attnviz.lines.{key}``.
"""

import functools

import streamlit as st

from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.charts.token_lines import lines_note, selected_token, token_lines
from attnviz.ui.charts import draw, show_matrix
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape

VIEWS = ("Heatmap", "Token lines")
ONE_TOKEN = "attnviz.lines."  # + key: ("query", i) or ("key", j) shown alone, or None
WHERE = {"query": "row", "key": "column"}


def show_attention(A, row_labels, col_labels, *, key, mask=None, **heatmap_args):
    """Draw the square attention matrix ``A`` (n, n) as a heatmap or as token lines, as the
    switch above it says.

    ``heatmap_args`` go to ``show_matrix`` unchanged (title, family, selectable, ...); the
    lines take the title from them. Returns the (i, j) just clicked in the heatmap, else None
    (always None in the lines view: a click there picks a token, not a cell).
    """
    view = st.segmented_control(
        "View of the attention matrix",
        VIEWS,
        default=VIEWS[0],
        required=True,
        key=f"{key}_view",
        persist_state="session",
        label_visibility="collapsed",
    )
    if view != VIEWS[1]:
        return show_matrix(A, row_labels, col_labels, key=key, mask=mask, **heatmap_args)
    show_token_lines(A, row_labels, key=key, mask=mask, title=heatmap_args.get("title", ""))
    return None


def _pick(key, n):
    """on_select of the lines chart: a newly clicked token is shown alone, the token shown
    alone clicked again (or a click that selects nothing) shows every line."""
    state = st.session_state.get(f"{key}_lines")
    picked = selected_token(state.selection if state else None, n)
    alone = st.session_state.get(ONE_TOKEN + key)
    st.session_state[ONE_TOKEN + key] = None if picked == alone else picked


def _show_all(key):
    st.session_state[ONE_TOKEN + key] = None


def show_token_lines(A, labels, *, key, mask=None, title=""):
    """The token lines of ``A`` under ``{key}_lines``, with what they draw and, when one token
    is shown alone, which and how to go back."""
    n = len(labels)
    alone = st.session_state.get(ONE_TOKEN + key)
    if alone is not None and not alone[1] < n:  # fewer tokens than when it was clicked
        alone = st.session_state[ONE_TOKEN + key] = None
    text_px = PRESENT_TEXT_PX if is_present() else TEXT_PX
    fig = token_lines(A, labels, selected=alone, mask=mask, text_px=text_px, title=title)
    if alone is not None:
        side, index = alone
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.markdown(
            f"Only the lines of {side} **{md_escape(labels[index])}** ({WHERE[side]} {index}): "
            "click it again, or show all lines."
        )
        right.button(
            "Show all lines", key=f"{key}_all", on_click=_show_all, args=(key,), width="stretch"
        )
    config = {"displaylogo": False, "toImageButtonOptions": {"filename": f"attnviz-{key}-lines"}}
    draw(
        fig,
        f"{key}_lines",
        title="Token lines",
        on_select=functools.partial(_pick, key, n),
        selection_mode="points",
        width="content",
        config=config,
    )
    st.caption(lines_note(A, mask=mask, selected=alone, text_px=text_px))
