"""Projector mode's page-wide look: what the sidebar's PRESENT_CSS does not cover (buttons and
labels that wrap, larger boxes, the stepper's slim bar, a step's paragraph after its chart),
and, on every page, display formulas shrunk to their column instead of cut at the right.

The sidebar (``attnviz.ui.sidebar``) holds the projector switch and its CSS for the text; the
charts' own text is sized by the chart builders and ``charts.present``.
"""

import pandas as pd
import streamlit as st

from attnviz.links.shared import read_present
from attnviz.ui.sidebar import DISPLAY_KEY, is_present
from attnviz.ui.text import md_escape

# Left in the URL on every page: the stepper's step and the lecture deck (attnviz.ui.stepper)
KEPT_PARAMS = ("step", "deck", "slide")
PROJECTOR_CSS = """<style>
/* buttons, toggles and widget labels wrap instead of being cut; boxes and lists grow */
[data-testid="stMain"] .stMarkdownEllipsis, [data-testid="stMain"] [data-testid="stWidgetLabel"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
[data-testid="stMain"] button, [data-testid="stMain"] a.attnviz-slide { height: auto; }
[data-testid="stMain"] button p, [data-testid="stMain"] [data-testid="stWidgetLabel"] p,
[data-testid="stMain"] input, [data-testid="stMain"] textarea,
[data-testid="stMain"] [data-baseweb="select"] div { font-size: 1.3rem !important; }
[data-testid="stMain"] [data-testid="stExpander"] summary p { font-size: 1.4rem; }
[data-testid="stMain"] code { font-size: 1.2rem; }
[data-testid="stMain"] [data-testid="stFileUploaderDropzoneInstructions"] * { font-size: 1.2rem; }
/* the stepper: one slim bar; a slide on another page is a link drawn as a button */
.st-key-stepper p { margin: 0; }
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem; }
[data-testid="stMainBlockContainer"] h1 { padding-top: 0.25rem; }
a.attnviz-slide { display: block; text-align: center; padding: 0.25rem 0.75rem;
  border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; color: inherit;
  text-decoration: none; font-size: 1.3rem; }
/* a step's paragraph after its chart: the chart first on the screen */
[data-testid="stMain"] div:has(> [class*="st-key-step_meaning"]) { order: 10; }
</style>"""
# Every page: a formula wider than its column is shown smaller to fit, not cut at the right
# (KaTeX draws a display formula on one line).
FIT_FORMULAS_JS = """<script>
(() => {
  if (window.__attnvizFit) return;
  window.__attnvizFit = true;
  const fit = () => {
    for (const block of document.querySelectorAll(".katex-display")) {
      const k = block.querySelector(":scope > .katex");
      if (!k) continue;
      k.style.fontSize = "";  // its own size first (1.5em of the text on a projector)
      const room = block.clientWidth, need = k.scrollWidth;
      const size = parseFloat(getComputedStyle(k).fontSize);
      if (need > room && room > 0) k.style.fontSize = `${Math.floor(size * room / need)}px`;
    }
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; fit(); });
  }).observe(document.body, {childList: true, subtree: true});
  window.addEventListener("resize", fit);
})();
</script>"""


def present_wanted():
    """Projector mode before the sidebar is drawn: the session's, or on its first run the
    link's (so that the sidebar starts collapsed in projector mode)."""
    if DISPLAY_KEY in st.session_state:
        return is_present()
    return read_present({name: st.query_params.get_all(name) for name in st.query_params})[0]


def page_look():
    """The projector's CSS in projector mode; the formula-fitting script on every page."""
    if is_present():
        st.html(PROJECTOR_CSS)
    st.html(FIT_FORMULAS_JS, unsafe_allow_javascript=True)


def _escaped(values):
    """A column or an index of text as a static table shows it: Markdown, escaped."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    return values.map(lambda v: md_escape(str(v)))


def data_table(data, *, hide_index=None, height=None, **dataframe_args):
    """A table of ``data`` (a DataFrame, or what makes one: a dict of columns, a list of rows).

    On a screen a scrolling grid (``st.dataframe``, ``height`` px or its own). In projector mode
    a static table in the page's larger text instead (a grid draws its cells on a canvas, at
    its own small size whatever the page's CSS), its text escaped (a static table's cells are
    Markdown), ``height`` px tall at most, then scrolling."""
    if not is_present():
        return st.dataframe(data, hide_index=hide_index, height=height or "auto", **dataframe_args)
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    frame = frame.apply(_escaped)
    frame.index = _escaped(frame.index.to_series()).rename(frame.index.name)
    return st.table(frame, hide_index=hide_index, height=height or "content")
