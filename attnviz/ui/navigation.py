"""The app's pages, found in pages/: each page's label and what it teaches (its docstring), and
the sidebar's links to them.

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

PAGES_DIR = Path(__file__).resolve().parents[2] / "pages"
HOME = ("app.py", "Home")  # (path relative to the app, label) of the entry script


@functools.cache  # pages/ does not change while the server runs: parse it once
def lesson_pages():
    """[(path relative to the app, label, one-line description)] for every file in pages/."""
    found = []
    for path in sorted(PAGES_DIR.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        label = path.stem.split("_", 1)[-1].replace("_", " ")
        found.append((f"pages/{path.name}", label, doc.split("\n", 1)[0]))
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
