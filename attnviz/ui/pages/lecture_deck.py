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
from attnviz.links.steps import STEP_TITLES, step_title
from attnviz.ui.address import app_address

TABLE_KEY = "deck_table"
PAGE_PATH = "Lecture_deck"
HOME_NAME = "Home"
EVERY_STEP = "every step, in order"  # a slide without a step: Next walks all the page's steps


def _page_names():
    """The pages a slide may open, as their URL paths, in the menu's order (Home first)."""
    return [page.path or HOME_NAME for page in PAGES]


def _path(page):
    """A page's key in ``links.steps`` ("" for Home)."""
    return "" if page == HOME_NAME else page


def _menu_name(page):
    return page.replace("_", " ")


def step_choices():
    """{the step column's choice: (page, step)}: every step of every page, named as the page's
    bar names it, "Real model: 5. Compare two sentences", in the menu's order."""
    choices = {}
    for page in _page_names():
        first, titles = STEP_TITLES.get(_path(page), (1, ()))
        for k, title in enumerate(titles, start=first):
            choices[f"{_menu_name(page)}: {title}"] = (page, k)
    return choices


def typed_page(text):
    """The page a typed name means: its path, whatever its case, with spaces or underscores
    ("real model" is Real_model); the text as typed when no page has that name (the deck's
    reader then says so)."""
    if not isinstance(text, str):
        return None
    wanted = " ".join(text.replace("_", " ").split()).casefold()
    if not wanted:
        return None
    names = {_menu_name(page).casefold(): page for page in _page_names()}
    return names.get(wanted, text.strip())


def starting_slides():
    """(slides, warnings): the deck in this page's link, or the default lecture."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    slides, _, warnings = read_deck(query, PATHS)
    return (slides or LECTURE), warnings


def _table(slides):
    """The slides as the editor's rows (page, step as its title, settings), indexed by slide
    number."""
    rows = []
    for s in slides:
        settings = s.text().partition("?")[2]
        page = s.page or HOME_NAME
        title = None if s.step is None else step_title(_path(page), int(s.step))
        rows.append(
            {
                "page": page,
                "step": EVERY_STEP if title is None else f"{_menu_name(page)}: {title}",
                "settings": settings,
            }
        )
    # numbered from 1, as the link's slide=k and the bar's "slide k of N" count
    index = pd.RangeIndex(1, len(rows) + 1, name="slide")
    return pd.DataFrame(rows, columns=["page", "step", "settings"], index=index)


def deck_editor(slides):
    """The slides as a table to edit (add, remove, reorder by editing rows); returns the text
    of the deck it now holds, one slide per row, and says which rows it left out (no page) or
    whose step is another page's."""
    edited = st.data_editor(
        _table(slides),
        key=TABLE_KEY,
        num_rows="dynamic",
        hide_index=False,
        width="stretch",
        column_config={
            # typed, not picked from a list: a list's cell took the wrong page on Enter
            "page": st.column_config.TextColumn(
                "page",
                help="The page the slide opens: type its name as the menu writes it (any case; "
                "spaces or underscores), e.g. Real model.",
            ),
            "step": st.column_config.SelectboxColumn(
                "step",
                options=[EVERY_STEP, *step_choices()],
                default=EVERY_STEP,
                help="The step it opens on in projector mode, by the title its bar shows; "
                f"“{EVERY_STEP}”: the page's first, and Next goes through each of them. Choose "
                "one of the row's page.",
            ),
            "settings": st.column_config.TextColumn(
                "settings",
                help="Its own link parameters, as in a link: e.g. edit=1,0,5 or "
                "mask=causal&d_k=8 (empty: the defaults); on a Classroom slide, question=row_sum "
                "asks your room that question on arrival, once Prepare the lecture (or the "
                "slide's own Send button) has let this deck ask there; question=sketch&"
                "query=cat asks the sketch of that query's row.",
            ),
        },
    )
    text, pageless, elsewhere = table_text(edited)
    if pageless:
        rows = ", ".join(map(str, pageless))
        st.warning(
            f"{'Rows' if len(pageless) > 1 else 'Row'} {rows} of the table "
            f"{'have' if len(pageless) > 1 else 'has'} no page: left out of the link until you "
            "type one in the page column.",
            icon="⚠️",
        )
    for row, step in elsewhere:
        st.warning(
            f"Row {row}: the step “{step}” is not a step of that row's page, so the slide opens "
            "on the page's first step.",
            icon="⚠️",
        )
    return text


def table_text(table):
    """(the deck's text, one slide per row with a page; the numbers of the rows without one,
    which it leaves out; (row, step) of the rows whose step is another page's, opened on their
    page's first step) of the editor's ``table`` (page, step as a choice of ``step_choices``,
    settings; indexed by slide)."""
    parts, pageless, elsewhere = [], [], []
    choices = step_choices()
    for row in table.itertuples():
        page = typed_page(row.page)
        step = choices.get(row.step) if isinstance(row.step, str) else None
        if page is None and step is not None:  # a step chosen first names its page
            page = step[0]
        if page is None:
            pageless.append(row.Index)
            continue
        text = page
        if step is not None and step[0] == page:
            text += f"/{step[1]}"
        elif step is not None:
            elsewhere.append((row.Index, row.step))
        if isinstance(row.settings, str) and row.settings.strip():
            text += "?" + row.settings.strip().lstrip("?")
        parts.append(text)
    return SLIDE_SEP.join(parts), pageless, elsewhere


def deck_link(text):
    """Read the deck back (saying what was left out) and give its link, whole (the app's
    address, ``ui.address``): the first slide, in projector mode, with the deck and its
    position. Returns the slides read (() when none)."""
    slides, warnings = parse_deck(text, PATHS)
    for warning in warnings:
        st.warning(warning, icon="⚠️")
    if not slides:
        return ()
    query = slide_query(slides, 0)
    link = f"{app_address(PAGE_PATH)}/{slides[0].page}?{urlencode(query)}"  # whole: to hand out
    st.markdown(
        "The link of this slide:"
        if len(slides) == 1
        else f"The link of these {len(slides)} slides:"
    )
    st.code(link, language=None, wrap_lines=True)
    st.link_button("▶ Start the lecture", link, type="primary")
    return slides
