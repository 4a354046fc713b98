"""The shell's parts: the pages for ``st.navigation`` (from the table of pages,
``attnviz.links.course``), the frame drawn once around the page (the menu of pages, the shared
sidebar, the link's warnings, the CSS) and what a page script asks of it (its row, its settings,
the example computed for them).

app.py's script is the shell; it runs on every run of every page:

    page = navigation()  # st.navigation over the table; Streamlit's own menu hidden
    draw_frame(page)     # set_page_config, sidebar, link sync, CSS, warnings, the menu
    page.run()           # the page's script: its lesson only

and a page script starts from what the frame made:

    example = lesson()   # settings (sidebar + URL) -> compute (cached on the settings)

Streamlit's own menu is hidden (``position="hidden"``): its links carry no settings (a page
opened in a new tab would start from the defaults), so ``page_links`` draws the menu instead,
each link carrying the settings. A page script run alone (AppTest on one file, ``streamlit run
app_pages/Why_scale.py``, the benchmarks) draws its own frame, without the menu, on its first
call of ``page_settings`` or ``lesson``.
"""

import copy
import functools
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attnviz.checks import AttentionInputError
from attnviz.limits import MAX_TOKENS
from attnviz.links.course import BY_PATH, LECTURERS, PAGES
from attnviz.links.shared import settings_query
from attnviz.serve.example import cached_example
from attnviz.ui.sidebar import (
    KEPT_PARAMS,
    PRESENT_CSS,
    SETTINGS_KEY,
    URL_WARNINGS_KEY,
    display_query,
    initial_settings,
    is_present,
    page_look,
    present_wanted,
    sidebar_widgets,
    sync_url,
)

APP_PAGES = Path(__file__).resolve().parents[2] / "app_pages"  # one script a row of the table
SHOWN_KEY = "attnviz.shown"  # the URL path of the page the shell ran last, in the session


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


@functools.cache
def _made_pages():
    """{URL path: st.Page} for every row, made once per process: an st.Page resolves its file on
    the disk (``Path.resolve``), which a run of every page need not do again. Without its icon:
    the menu's links have none (the icon is the browser tab's, ``draw_frame``)."""
    return {
        row.path: st.Page(
            APP_PAGES / row.script,
            title=row.title,
            url_path=row.path or None,
            default=not row.path,
        )
        for row in PAGES
    }


def page_of(row):
    """The st.Page of ``row``, for ``st.page_link`` (made once: no file looked up per link)."""
    return _made_pages()[row.path]


def navigation():
    """``st.navigation`` over the table of pages, in its sections, Streamlit's menu hidden; the
    page this run shows. Each run gets copies of the pages: ``st.navigation`` marks the one it
    returns as callable once, which must not be shared by two sessions at once."""
    sections = {}
    for row in PAGES:
        sections.setdefault(row.section, []).append(copy.copy(_made_pages()[row.path]))
    return st.navigation(sections, position="hidden")


def page_links(query):
    """One link per page, Home first, each carrying ``query`` (the shared settings as URL
    parameters), so a page opened in a new tab starts from the same settings (a page's own
    parameters, such as Your own numbers' matrices, are in that page's address only); the
    lecturer's tools apart, under "For lecturers"."""
    section = None
    for row in PAGES:
        if row.section == LECTURERS != section:
            st.caption(LECTURERS)  # the tools, apart from the course
        section = row.section
        st.page_link(page_of(row), label=row.label, query_params=query)


def draw_frame(page):
    """Configure the page ``page`` (the st.Page that ``navigation`` returned, or a row of the
    table) and draw the frame around it: the shared sidebar with the menu, the link's warnings,
    the CSS. The page's script reads what it made (``page_settings``, ``lesson``)."""
    row = BY_PATH[page.url_path] if isinstance(page, st.Page) else page
    st.session_state[SHOWN_KEY] = row.path
    st.set_page_config(
        page_title=f"{row.title} · attnviz",
        page_icon=row.icon,
        layout="wide",
        initial_sidebar_state="collapsed" if present_wanted() else "auto",
    )
    return shared_settings(row, menu=isinstance(page, st.Page))


def _alone():
    """The row of the page script that runs as the main script (no shell), or None."""
    ctx = get_script_run_ctx()
    return None if ctx is None else _row_of_main(ctx.main_script_path)


@functools.cache  # a file looked up on the disk once per path, not on every run
def _row_of_main(main_script_path):
    """The row whose script is ``main_script_path``, or None (app.py: the shell)."""
    main = Path(main_script_path).resolve()
    if main.parent != APP_PAGES:
        return None
    return next(row for row in PAGES if row.script == main.name)


def this_page():
    """The row of the table (``attnviz.links.course.Page``) of the page this run shows."""
    alone = _alone()
    return alone if alone is not None else BY_PATH[st.session_state[SHOWN_KEY]]


def page_settings():
    """The Settings of the sidebar, which the frame drew for this page (a page run alone draws
    its frame here, without the menu)."""
    alone = _alone()
    if alone is not None:
        return draw_frame(alone)
    return st.session_state[SETTINGS_KEY]


def lesson():
    """The Example computed for this page's settings (``page_settings``).

    Stops the page with a clear message (never a traceback) when the settings are unusable.
    """
    settings = page_settings()
    try:
        return cached_example(settings)
    except AttentionInputError as exc:
        st.error(f"{exc}", icon="🚫")
        st.stop()


def shared_settings(row, menu=True):
    """The settings every page shares: sidebar widgets, kept across pages, mirrored in the URL.

    ``row`` is the page's (``attnviz.links.course.Page``): its title names it in the sidebar,
    its own URL parameters are left in the URL (the page writes them), and its note (markdown)
    under the sidebar's header says which settings it uses, when it does not use them all
    (its ``uses``: Settings fields; in projector mode only those are drawn). ``menu``: draw
    the menu of pages on top of the sidebar (there is none for a page run alone).
    """
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    note, uses = row.sidebar_for(query)
    state = st.session_state
    if SETTINGS_KEY not in state:
        state[SETTINGS_KEY] = initial_settings()
    top = st.sidebar.container()  # on top of the sidebar; its links need this run's settings
    settings = sidebar_widgets(state[SETTINGS_KEY], row.title, note, uses)
    state[SETTINGS_KEY] = settings
    sync_url(settings, (*row.page_params, *KEPT_PARAMS))
    if menu:
        with top:
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
