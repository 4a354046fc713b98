"""The Lecture deck page: a table of slides (page, step, settings) that the lecturer edits, read
back as a deck (``attnviz.links.deck``), and the one link that gives the lecture.

The table starts from the deck in the page's own link (``deck=``), or from the default
50-minute lecture (``LECTURE``); a row that names no page or has a bad step is left out, and said.
"""

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from attnviz.links.course import PAGES, PATHS
from attnviz.links.deck import LECTURE, SLIDE_SEP, parse_deck, read_deck, slide_query
from attnviz.ui.address import app_address

TABLE_KEY = "deck_table"
PAGE_PATH = "Lecture_deck"
HOME_NAME = "Home"


def _page_names():
    """The pages a slide may open, as their URL paths, in the menu's order (Home first)."""
    return [page.path or HOME_NAME for page in PAGES]


def starting_slides():
    """(slides, warnings): the deck in this page's link, or the default lecture."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    slides, _, warnings = read_deck(query, PATHS)
    return (slides or LECTURE), warnings


def _table(slides):
    """The slides as the editor's rows (page, step, settings), indexed by slide number."""
    rows = []
    for s in slides:
        settings = s.text().partition("?")[2]
        rows.append(
            {
                "page": s.page or HOME_NAME,
                "step": None if s.step is None else int(s.step),
                "settings": settings,
            }
        )
    # numbered from 1, as the link's slide=k and the bar's "slide k of N" count
    index = pd.RangeIndex(1, len(rows) + 1, name="slide")
    return pd.DataFrame(rows, columns=["page", "step", "settings"], index=index)


def deck_editor(slides):
    """The slides as a table to edit (add, remove, reorder by editing rows); returns the text
    of the deck it now holds, one slide per row, and says which rows it left out (no page)."""
    edited = st.data_editor(
        _table(slides),
        key=TABLE_KEY,
        num_rows="dynamic",
        hide_index=False,
        width="stretch",
        column_config={
            "page": st.column_config.SelectboxColumn(
                "page", options=_page_names(), required=True, help="The page the slide opens."
            ),
            "step": st.column_config.NumberColumn(
                "step",
                min_value=0,
                step=1,
                help="The step it opens on, in projector mode (empty: the page's first).",
            ),
            "settings": st.column_config.TextColumn(
                "settings",
                help="Its own link parameters, as in a link: e.g. edit=1,0,5 or "
                "mask=causal&d_k=8 (empty: the defaults); on a Classroom slide, question=row_sum "
                "asks your room that question.",
            ),
        },
    )
    text, pageless = table_text(edited)
    if pageless:
        rows = ", ".join(map(str, pageless))
        st.warning(
            f"{'Rows' if len(pageless) > 1 else 'Row'} {rows} of the table "
            f"{'have' if len(pageless) > 1 else 'has'} no page: left out of the link until you "
            "choose one in the page column.",
            icon="⚠️",
        )
    return text


def table_text(table):
    """(the deck's text, one slide per row with a page; the numbers of the rows without one,
    which it leaves out) of the editor's ``table`` (page, step, settings; indexed by slide)."""
    parts, pageless = [], []
    for row in table.itertuples():
        if not isinstance(row.page, str) or not row.page:
            pageless.append(row.Index)
            continue
        text = row.page
        if row.step is not None and not pd.isna(row.step):
            text += f"/{int(row.step)}"
        if isinstance(row.settings, str) and row.settings.strip():
            text += "?" + row.settings.strip().lstrip("?")
        parts.append(text)
    return SLIDE_SEP.join(parts), pageless


def deck_link(text):
    """Read the deck back (saying what was left out) and give its link, whole (the app's
    address, ``ui.address``): the first slide, in projector mode, with the deck and its
    position."""
    slides, warnings = parse_deck(text, PATHS)
    for warning in warnings:
        st.warning(warning, icon="⚠️")
    if not slides:
        return None
    query = slide_query(slides, 0)
    link = f"{app_address(PAGE_PATH)}/{slides[0].page}?{urlencode(query)}"  # whole: to hand out
    st.markdown(f"The link of these {len(slides)} slides:")
    st.code(link, language=None, wrap_lines=True)
    st.link_button("▶ Start the lecture", link, type="primary")
    return link
