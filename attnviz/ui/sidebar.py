"""The sidebar's shared settings: their widgets, kept across pages in st.session_state,
read from and mirrored in the URL; and the display (projector mode, the charts' palette: one
``charts.finish.Display``, kept the same way and set once a run), with projector mode's
page-wide look (``PRESENT_CSS`` for the text, ``page_look``: buttons and labels that wrap, the
stepper's slim bar, formulas shrunk to their column).

``attnviz.ui.frame`` draws them on every page; the pages read ``is_present`` (projector mode),
``ui.charts`` the Display, and ``follow`` (a page's own widget that follows a shared setting).
"""

import functools
from dataclasses import replace

import streamlit as st

from attnviz.charts.finish import COLOUR_BLIND, STANDARD, Display
from attnviz.limits import (
    MAX_TEXT_CHARS,
    MAX_TOKENS,
)
from attnviz.links.course import COURSE, PAGES
from attnviz.links.shared import (
    NUMBERS,
    PALETTE_LINK,
    from_query,
    read_palette,
    read_present,
    settings_query,
)
from attnviz.links.steps import PAGE_STEPS
from attnviz.settings import (
    EMBEDDINGS,
    MASKS,
    SETTING_NAMES,
    shown_temperature,
)

SETTINGS_KEY = "attnviz.settings"  # the Settings in force, kept across pages
URL_WARNINGS_KEY = "attnviz.url_warnings"  # (Settings read from the URL, its warnings)
PAGE_KEY = "attnviz.page"  # the page whose widgets hold the settings now
WIDGET = "attnviz_"  # widget keys: WIDGET + a Settings field name, e.g. "attnviz_d_k"
# How pages are shown (projector mode, the charts' palette: a charts.finish.Display), kept
# across pages like the settings; set once a run, when the sidebar draws its toggles
DISPLAY_KEY = "attnviz.display"
SCREEN_DISPLAY = Display()  # a session the sidebar has not run in: a screen, standard colours
PRESENT_WIDGET = "attnviz_present"
PALETTE_WIDGET = "attnviz_palette"
# Projector mode: body text larger, headers too, captions and downloads out of the way. The
# charts' own text is sized by the chart builders (charts.style.PRESENT_TEXT_PX).
PRESENT_CSS = """<style>
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li,
[data-testid="stMainBlockContainer"] td, [data-testid="stMainBlockContainer"] th {
  font-size: 1.4rem; line-height: 1.5; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.8rem; }
[data-testid="stMainBlockContainer"] h2 { font-size: 2.2rem; }
[data-testid="stMainBlockContainer"] h3 { font-size: 1.8rem; }
[data-testid="stMainBlockContainer"] .katex { font-size: 1.5em; }
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"],
[data-testid="stDownloadButton"] { display: none; }
</style>"""
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


def url_query():
    """The URL's parameters as {name: [every value]}: a repeated name keeps all of its values,
    so the link readers (``attnviz.links``) can say which one they used."""
    return {name: st.query_params.get_all(name) for name in st.query_params}


def write_page_params(names, want):
    """Make the URL hold a page's own parameters ``names`` as ``want`` ({name: text}): set
    those that differ, drop those ``want`` leaves out; every other parameter stays."""
    current = st.query_params.to_dict()
    for name in names:
        if name not in want and name in current:
            del st.query_params[name]
        elif name in want and current.get(name) != want[name]:
            st.query_params[name] = want[name]


def page_choice(choice_from_query, url_key, choice_key):
    """A page's own choice in force (its link parameters, ``attnviz.links.<page>``): read
    from the URL in a new session by ``choice_from_query(query) -> (choice, warnings)``, with
    one box for every value that had to change, shown until the student changes something
    (``st.session_state[choice_key]`` is then another choice); else as last left there."""
    state = st.session_state
    if url_key not in state:
        url_choice, warnings = choice_from_query(url_query())
        state[url_key] = (url_choice, warnings)
        state[choice_key] = url_choice
    url_choice, warnings = state[url_key]
    if warnings and state[choice_key] == url_choice:
        st.warning(
            "Some of the link's values could not be used as they are:\n"
            + "\n".join(f"- {warning}" for warning in warnings),
            icon="⚠️",
        )
    return state[choice_key]


def initial_settings():
    """Settings for a new session: from the URL, remembering what had to be changed; the
    projector mode from the URL too."""
    query = url_query()
    settings, warnings = from_query(query)
    present, present_warnings = read_present(query)
    palette, palette_warnings = read_palette(query)
    st.session_state[DISPLAY_KEY] = Display(present, palette)
    st.session_state[URL_WARNINGS_KEY] = (settings, warnings + present_warnings + palette_warnings)
    return settings


@functools.cache  # the pages' steps do not change while the server runs
def stepped_pages():
    """Which pages step in projector mode, in words: "every page of the course but Work it out"
    (read from the steps each page has, ``links.steps.PAGE_STEPS``: (first, last))."""
    course = [page for page in PAGES if page.section == COURSE]
    single = [page.label for page in course if _one_screen(*PAGE_STEPS.get(page.path, (1, 1)))]
    if not single:
        return "every page of the course"
    listed = single[0] if len(single) == 1 else f"{', '.join(single[:-1])} and {single[-1]}"
    return f"every page of the course but {listed}"


def _one_screen(first, last):
    return last <= first


def display():
    """How this session's pages are shown (``charts.finish.Display``: projector mode, the
    charts' palette), as the sidebar set it this run."""
    return st.session_state.get(DISPLAY_KEY, SCREEN_DISPLAY)


def is_present():
    """Whether projector mode is on: larger text, one step at a time, fewer controls."""
    return display().present


def palette():
    """The charts' palette: ``charts.finish.STANDARD`` or ``COLOUR_BLIND``."""
    return display().palette


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


def display_query():
    """The URL parameters of how pages are shown: {"present": "on"} in projector mode,
    {"palette": "colourblind"} with the colour-blind-safe palette."""
    query = {"present": "on"} if is_present() else {}
    if palette() != STANDARD:
        query["palette"] = {v: k for k, v in PALETTE_LINK.items()}[palette()]
    return query


def _number_input(name, step=1, **args):
    """The box of the shared number ``name``, its range, label and help from the one table of
    them (``links.shared.NUMBERS``, which ``from_query`` reads too)."""
    number = NUMBERS[name]
    st.number_input(
        number.label,
        number.low,
        number.high,
        step=step,
        key=WIDGET + name,
        help=number.help,
        **args,
    )


def sidebar_widgets(settings, page, note, uses):
    """Draw the shared settings in the sidebar; return the Settings they now hold.

    A widget's state does not survive a page switch (the new page's widget starts from its own
    default), nor a run in which it was hidden (the text box while tokens are generated), so
    those widgets are set from ``settings`` before they are drawn.
    """
    state = st.session_state
    new_page = state.get(PAGE_KEY) != page
    state[PAGE_KEY] = page
    for name in SETTING_NAMES:
        if new_page or WIDGET + name not in state:
            state[WIDGET + name] = getattr(settings, name)
    if new_page or PRESENT_WIDGET not in state:
        state[PRESENT_WIDGET] = is_present()
    if new_page or PALETTE_WIDGET not in state:
        state[PALETTE_WIDGET] = palette() == COLOUR_BLIND
    with st.sidebar:
        st.toggle(
            "Projector mode",
            key=PRESENT_WIDGET,
            help="For a lecture: larger text and chart labels, one step at a time on "
            f"{stepped_pages()}, no downloads or captions, only the settings this page uses. "
            "Kept in the link as present=on.",
        )
        st.toggle(
            "Colour-blind-safe colours",
            key=PALETTE_WIDGET,
            help="Lines and marks whose colours carry a meaning in pairs (scaled and unscaled: "
            "green and red by default) drawn in blue and vermillion instead, apart for every "
            "kind of colour vision, and masked cells darker. Kept in the link as "
            "palette=colourblind.",
        )
        state[DISPLAY_KEY] = Display(
            bool(state[PRESENT_WIDGET]), COLOUR_BLIND if state[PALETTE_WIDGET] else STANDARD
        )
        st.header("Settings")
        if note:
            st.caption(note)
        # ``uses`` () draws none (a phone in a Classroom room, which shows the room's example)
        shown = SETTING_NAMES if uses is None or not (is_present() or uses == ()) else uses
        if {"generated", "n", "text"} & set(shown):
            st.toggle(
                "Generate tokens t1 … tn",
                key=WIDGET + "generated",
                help="Instead of typing a sentence, choose how many tokens there are.",
            )
            if state[WIDGET + "generated"]:
                _number_input("n")
            else:
                st.text_area(
                    "Sentence (tokens are separated by spaces)",
                    key=WIDGET + "text",
                    max_chars=MAX_TEXT_CHARS,
                    height=80,
                    help=f"Up to {MAX_TOKENS} tokens are used. Tokens keep their case and "
                    "punctuation exactly as typed.",
                )
        if "d_model" in shown:
            for column, name in zip(st.columns(3), ("d_model", "d_k", "d_v"), strict=True):
                with column:
                    _number_input(name)
        if "seed" in shown:
            _number_input("seed")
        if "embedding" in shown:
            st.selectbox(
                "Embedding",
                EMBEDDINGS,
                key=WIDGET + "embedding",
                help="random: each distinct token text gets its own N(0, 1) vector. one-hot: "
                "the k-th distinct token gets e_k (needs d_model >= distinct tokens).",
            )
        if "positions" in shown:
            st.toggle(
                "Add positional encoding",
                key=WIDGET + "positions",
                help="X = token embedding + sinusoidal positional encoding.",
            )
        if "mask" in shown:
            st.radio(
                "Mask",
                MASKS,
                key=WIDGET + "mask",
                horizontal=True,
                help="causal: query i may attend only to keys 0..i (as in GPT).",
            )
        if "scale" in shown:
            st.toggle("Scale by 1/√d_k", key=WIDGET + "scale")
        if "temperature" in shown:
            # every digit of the T used: 0.015 shows as 0.015, not 0.01
            _number_input("temperature", step=0.1, format="%g")
    values = {  # a control not drawn (projector mode) keeps the setting's value
        name: state[WIDGET + name]
        if name in shown or name in ("n", "text")
        else getattr(settings, name)
        for name in SETTING_NAMES
    }
    values["temperature"] = shown_temperature(values["temperature"])  # what the box shows
    return replace(settings, **values)


def sync_url(settings, page_params):
    """Make the URL hold ``settings`` and projector mode, and the parameters named in
    ``page_params`` (the calling page's own, which it keeps up to date itself) as they are."""
    current = st.query_params.to_dict()
    query = settings_query(settings) | display_query()
    query |= {k: current[k] for k in page_params if k in current}
    if current != query:
        st.query_params.from_dict(query)


def link_query():
    """The current settings (and projector mode) as query parameters, for
    ``st.page_link(..., query_params=...)``."""
    if SETTINGS_KEY not in st.session_state:
        return {}
    return settings_query(st.session_state[SETTINGS_KEY]) | display_query()


def follow(key, shared):
    """Start the page-local widget ``key`` at the shared setting's value ``shared``.

    The widget then keeps the student's choice, until the shared setting changes in the sidebar:
    then it jumps to the new value, so the page answers the sidebar. Call before the widget is
    drawn, and draw it without a default (``value``/``index``).
    """
    state = st.session_state
    memo = f"{key}.shared"
    if key not in state or state.get(memo) != shared:
        state[key] = shared
    state[memo] = shared
