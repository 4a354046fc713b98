"""The frame around every page: the menu of pages, the shared sidebar (its widgets and their
state are ``attnviz.ui.sidebar``), the link's warnings and the cached example.

Every page calls ``page_setup`` first; it returns the Example computed for the settings:

    settings (sidebar + URL) -> compute (cached on the settings) -> charts -> page

Streamlit's own sidebar menu (classic multipage mode) names the home page after its file,
"app", and its links carry no settings (a page opened in a new tab would start from the
defaults); it is turned off in .streamlit/config.toml
(``client.showSidebarNavigation = false``) and ``page_links`` draws the menu instead.
"""

import ast
import functools
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from attnviz.checks import AttentionInputError
from attnviz.limits import MAX_TOKENS
from attnviz.links.course import LECTURER_TOOLS, course_rank
from attnviz.links.shared import settings_query
from attnviz.serve.example import cached_example
from attnviz.ui.projector import KEPT_PARAMS, page_look, present_wanted
from attnviz.ui.sidebar import (
    PRESENT_CSS,
    SETTINGS_KEY,
    URL_WARNINGS_KEY,
    display_query,
    initial_settings,
    is_present,
    sidebar_widgets,
    sync_url,
)

PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"
HOME = ("app.py", "Home")  # (path relative to the app, label) of the entry script


# Every page, for every reader (WCAG 2.1 AA): captions dark enough to read (Streamlit's grey at
# 60 % opacity is 3.9:1 on white; this one 7:1), and display formulas that wrap at their
# relations and operators instead of scrolling sideways in a box that a keyboard cannot reach;
# on a touch screen, no Plotly toolbar over the charts' titles and tap targets 44 px tall; on
# a phone, a wide table scrolls in its own box instead of the page.
READABLE_CSS = """<style>
[data-testid="stCaptionContainer"] { color: #55565f; opacity: 1; }
.katex-display { overflow-x: clip !important; overflow-y: visible !important; }
.katex-display > .katex { white-space: normal; }
@media (hover: none) { .modebar-container { display: none !important; } }
@media (max-width: 640px) {
  [data-testid="stTable"], [data-testid="stMarkdownContainer"] table {
    display: block; overflow-x: auto; max-width: 100%; }
}
@media (pointer: coarse) {
  [data-testid="stRadio"] label, [data-testid="stCheckbox"] label,
  [data-testid="stWidgetLabel"] + div label, .stButton button, .stDownloadButton button,
  [data-testid="stPageLink-NavLink"], [data-testid="stExpander"] summary {
    min-height: 44px; display: flex; align-items: center; }
}
</style>"""
# A tap on a chart, on a touch screen: Plotly selects the point under the last hover, and a tap
# brings no hover before its click, so the first tap on a cell would select nothing. The tap's
# position is handed to Plotly as a hover first, and the tap opens the cell's inspector.
TOUCH_JS = """<script>
(() => {
  if (window.__attnvizTouch) return;
  window.__attnvizTouch = true;
  document.addEventListener("touchstart", (e) => {
    const t = e.touches[0];
    const target = t && document.elementFromPoint(t.clientX, t.clientY);
    if (!target || !target.closest(".js-plotly-plot")) return;
    target.dispatchEvent(new MouseEvent("mousemove",
      {clientX: t.clientX, clientY: t.clientY, bubbles: true, view: window}));
  }, {capture: true, passive: true});
})();
</script>"""


@functools.cache  # pages/ does not change while the server runs: parse it once
def lesson_pages():
    """[(path relative to the app, label, one-line description)] for every file in pages/, in
    the course's order (``attnviz.links.course``: the course, then the lecturer's tools)."""
    found = []
    for path in sorted(
        PAGES_DIR.glob("*.py"),
        key=lambda p: (course_rank(p.stem.split("_", 1)[1]), int(p.stem.split("_", 1)[0])),
    ):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        label = path.stem.split("_", 1)[-1].replace("_", " ")
        found.append((f"pages/{path.name}", label, " ".join(doc.split("\n\n", 1)[0].split())))
    return tuple(found)


def page_paths():
    """The URL path of every page ("" for Home): classic multipage mode drops the number and
    ".py" of pages/N_Name.py."""
    return frozenset([""] + [Path(path).stem.split("_", 1)[1] for path, _, _ in lesson_pages()])


def page_links(query):
    """One link per page, Home first, each carrying ``query`` (the shared settings as URL
    parameters), so a page opened in a new tab starts from the same settings (a page's own
    parameters, such as Your own numbers' matrices, are in that page's address only).

    Draws nothing when the script runs without app.py as its entry (AppTest on one page file,
    or ``streamlit run pages/...``): there is no multipage app to link to then.
    """
    try:  # Home by its path: Streamlit finds no such page when app.py is not the entry
        st.page_link(HOME[0], label=HOME[1], query_params=query)
    except StreamlitPageNotFoundError:  # raised before the link is drawn
        return
    for (path, label, _), page in zip(lesson_pages(), menu_pages(), strict=True):
        if Path(path).stem.split("_", 1)[-1] == LECTURER_TOOLS[0]:
            st.caption("For lecturers")  # the tools, apart from the course
        st.page_link(page, label=label, query_params=query)


@functools.cache
def menu_pages():
    """An st.Page for each of ``lesson_pages``, made once per process. ``st.page_link``
    given a path resolves it on the disk (``os.path.realpath``) on every run, link by link:
    about a seventh of a phone's run in a busy room (docs/performance.md). A Page made of
    the path that Streamlit's classic multipage mode registers (pages/ beside the resolved
    app.py) is that same page to it."""
    return [st.Page(PAGES_DIR / Path(path).name) for path, _, _ in lesson_pages()]


def shared_settings(page, page_params=(), note=None, uses=None):
    """The settings every page shares: sidebar widgets, kept across pages, mirrored in the URL.

    ``page`` names the calling page (its title); ``page_params`` are URL parameters of its own
    that are left in the URL (the page writes them); ``note`` (markdown) under the sidebar's
    header says which settings the page uses, when it does not use them all; ``uses`` names
    them (Settings fields), and in projector mode only those are drawn.
    """
    state = st.session_state
    if SETTINGS_KEY not in state:
        state[SETTINGS_KEY] = initial_settings()
    menu = st.sidebar.container()  # on top of the sidebar; its links need this run's settings
    settings = sidebar_widgets(state[SETTINGS_KEY], page, note, uses)
    state[SETTINGS_KEY] = settings
    sync_url(settings, (*page_params, *KEPT_PARAMS))
    with menu:
        page_links(settings_query(settings) | display_query())
        st.divider()
    st.html(READABLE_CSS)
    st.html(TOUCH_JS, unsafe_allow_javascript=True)
    if is_present():
        st.html(PRESENT_CSS)
    page_look()
    url_settings, warnings = state.get(URL_WARNINGS_KEY, (None, []))
    if warnings and settings == url_settings:
        st.warning(  # one box, however many values the link had wrong
            "Some of the link's settings could not be used as they are:\n"
            + "\n".join(f"- {warning}" for warning in warnings),
            icon="⚠️",
        )
    all_tokens = settings.all_tokens
    if note is None:  # a page with a note takes its sizes from elsewhere
        st.sidebar.caption(f"n = {min(len(all_tokens), MAX_TOKENS)} tokens")
    if len(all_tokens) > MAX_TOKENS:
        st.warning(
            f"The text has {len(all_tokens)} tokens; the app uses the first {MAX_TOKENS} "
            f"(the limit). The rest stays in the text box.",
            icon="✂️",
        )
    return settings


def page_frame(title, icon="🔎", page_params=(), note=None, uses=None):
    """Configure the page and draw the shared sidebar; return the Settings.

    For pages that do not use the sidebar's example (they pass a ``note`` saying which settings
    they use); the other pages call ``page_setup``.
    """
    st.set_page_config(
        page_title=f"{title} · attnviz",
        page_icon=icon,
        layout="wide",
        initial_sidebar_state="collapsed" if present_wanted() else "auto",
    )
    return shared_settings(title, page_params=page_params, note=note, uses=uses)


def page_setup(title, icon="🔎", page_params=()):
    """Configure the page, draw the shared sidebar and return the computed Example.

    ``page_params``: the page's own URL parameters, left in the URL (the page writes them).
    Stops the page with a clear message (never a traceback) when the settings are unusable.
    """
    settings = page_frame(title, icon, page_params=page_params)
    try:
        return cached_example(settings)
    except AttentionInputError as exc:
        st.error(f"{exc}", icon="🚫")
        st.stop()
