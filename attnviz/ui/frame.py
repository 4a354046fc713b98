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
from attnviz.settings import compute
from attnviz.ui.cache import shared_cache
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
# relations and operators instead of scrolling sideways in a box that a keyboard cannot reach.
READABLE_CSS = """<style>
[data-testid="stCaptionContainer"] { color: #55565f; opacity: 1; }
.katex-display { overflow: visible !important; }
.katex-display > .katex { white-space: normal; }
</style>"""


@functools.cache  # pages/ does not change while the server runs: parse it once
def lesson_pages():
    """[(path relative to the app, label, one-line description)] for every file in pages/, in
    the order of their numbers (10_... after 9_...)."""
    found = []
    for path in sorted(PAGES_DIR.glob("*.py"), key=lambda p: int(p.stem.split("_", 1)[0])):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        label = path.stem.split("_", 1)[-1].replace("_", " ")
        found.append((f"pages/{path.name}", label, " ".join(doc.split("\n\n", 1)[0].split())))
    return tuple(found)


def page_links(query):
    """One link per page, Home first, each carrying ``query`` (the shared settings as URL
    parameters), so a page opened in a new tab starts from the same settings (a page's own
    parameters, such as Your own numbers' matrices, are in that page's address only).

    Draws nothing when the script runs without app.py as its entry (AppTest on one page file,
    or ``streamlit run pages/...``): there is no multipage app to link to then.
    """
    try:
        for path, label in [HOME] + [(path, label) for path, label, _ in lesson_pages()]:
            st.page_link(path, label=label, query_params=query)
    except StreamlitPageNotFoundError:  # raised before a link is drawn: the first, Home
        return


@shared_cache(max_entries=16)
def cached_example(settings):
    """compute(settings), once per distinct settings per server, shared by every session.

    Keyed on the small Settings, never on arrays; the result is read-only, so sessions share
    it without copies. An Example at the limits (n = d = 512) holds about 25 MB.
    """
    return compute(settings)


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
    sync_url(settings, page_params)
    with menu:
        page_links(settings.to_query() | display_query())
        st.divider()
    st.html(READABLE_CSS)
    if is_present():
        st.html(PRESENT_CSS)
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
    st.set_page_config(page_title=f"{title} · attnviz", page_icon=icon, layout="wide")
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
