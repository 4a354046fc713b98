"""One step per screen in projector mode: the stepper bar, the clicker's keys, the lecture deck.

A long page's steps are its row's in the table of pages (``attnviz.links.course``); it draws
each inside ``if show(k):``:

    show = lesson_steps()  # stepper("Why scale", ("1. The variance of q·k", ...), first=1)
    if show(1): ...

Out of projector mode ``show`` says yes to every step. In projector mode it says yes to one,
``step=N`` in the link (kept across reruns), and a slim bar above it holds Previous / Next and
"Step k of N". A lecture deck in the link (``deck=...&slide=s``, ``attnviz.links.deck``) makes
Next and Previous follow the deck's slides instead, across pages: a slide on another page (or
with other settings) is opened as its own link, as a student who opens it at home sees it.

The keys a presenter's clicker sends (→ / Page Down, ← / Page Up) press Next and Previous: a
small script in the page (``KEYS_JS``), which leaves keys typed into a box or a slider alone.
"""

import contextlib
import html
import re
from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from attnviz.links.course import PATHS
from attnviz.links.deck import read_deck, slide_query
from attnviz.links.readers import read_int
from attnviz.links.steps import PAGE_STEPS
from attnviz.ui.frame import this_page
from attnviz.ui.lecture_prepare import prepare_panel
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import learning_goal, random_weights_note

NEXT_KEY, BACK_KEY = "step_next", "step_back"  # the buttons' keys: the keys script clicks them
STEP_STATE = "attnviz_step."  # + the page's name: the step shown, kept across reruns
# The clicker: → and Page Down press Next, ← and Page Up press Previous, unless the key is
# meant for a box, a list or a slider (or comes with a modifier: the browser's own shortcuts).
KEYS_JS = """<script>
(() => {
  if (window.__attnvizKeys) return;
  window.__attnvizKeys = true;
  const keys = {ArrowRight: "step_next", PageDown: "step_next",
                ArrowLeft: "step_back", PageUp: "step_back"};
  document.addEventListener("keydown", e => {
    const key = keys[e.key];
    if (!key || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const t = e.target;
    if (t && t.closest && t.closest(
      "input, textarea, select, [contenteditable=true], [role=slider], [role=combobox], " +
      "[role=listbox], [role=spinbutton], [data-baseweb=select]")) return;
    const target = document.querySelector(`.st-key-${key}_link a, .st-key-${key} button`);
    if (!target || target.disabled) return;
    e.preventDefault();
    target.click();
  });
})();
</script>"""


@dataclass(frozen=True)
class Move:
    """Where Next (or Previous) goes: a step of this page (``step``), or another slide's link
    (``href``), or nowhere (both None); ``slide`` the deck position it reaches."""

    step: int | None = None
    href: str | None = None
    slide: int | None = None


def _state_key(page):
    return STEP_STATE + page


def step_count(titles):
    """How many steps there are: one per title."""
    return len(titles)


def step_label(k, titles, first):
    """ "Step 7 of 11: 6. Scaling": the position of step ``k`` counted from 1, of all of them,
    and the step's own title (which may number from 0)."""
    return f"Step {k - first + 1} of {step_count(titles)}: {titles[k - first]}"


def _href(slides, position, step=None):
    """The link of slide ``position``; ``step``, when given, the step it opens on (a slide
    without a step entered from behind opens on its last)."""
    page = slides[position].page
    query = slide_query(slides, position)
    if step is not None:
        query["step"] = str(step)
    return f"./{page}?{urlencode(query)}"


def _deck_move(slides, position, delta, page_path, params):
    """Where the deck's next (delta 1) or previous (-1) slide is, from ``position``. Going
    back, a slide without a step (the whole page) is entered at its last step, as Next left
    it: Previous retraces Next's screens."""
    target = position + delta
    if not 0 <= target < len(slides):
        return Move()
    there = slides[target]
    step = there.step
    if step is None and delta < 0 and there.page in PAGE_STEPS:
        step = PAGE_STEPS[there.page][1]
    if there.page == page_path and dict(there.params) == params and step is not None:
        return Move(step=step, slide=target)
    return Move(href=_href(slides, target, None if step == there.step else step), slide=target)


def deck_moves(slides, position, page_path, step, first, last):
    """(ahead, behind): where Next and Previous go on slide ``position`` of ``slides``, showing
    step ``step`` of a page whose steps run from ``first`` to ``last``.

    A slide that names its step is that one screen: Next and Previous go to the deck's next and
    previous slides. A slide without a step is the whole page: Next goes through the page's
    steps first (``step`` + 1 up to ``last``), then on to the next slide, and Previous back
    through them to ``first`` before the previous slide, which it enters at its last step
    when that slide is a whole page too: Previous shows Next's screens in reverse."""
    params = dict(slides[position].params)
    ahead = _deck_move(slides, position, 1, page_path, params)
    behind = _deck_move(slides, position, -1, page_path, params)
    if slides[position].step is None:  # the whole page: its own steps first
        if step < last:
            ahead = Move(step=step + 1, slide=position)
        if step > first:
            behind = Move(step=step - 1, slide=position)
    return ahead, behind


def url_path(page):
    """The URL path of the page named ``page`` in its stepper ("" for Home): classic
    multipage mode's path is the file's name after its number, words joined by _ ("Multi-head"
    is app_pages/Multi_head.py, path Multi_head)."""
    return "" if page == "Home" else re.sub(r"[\s-]+", "_", page.strip())


def _moved(page, step, slide):
    st.session_state[_state_key(page)] = step
    st.query_params["step"] = str(step)
    if slide is not None:
        st.query_params["slide"] = str(slide + 1)


def _button(column, label, move, key, page):
    """Next or Previous: a button for a move within the page, a link for another slide."""
    with column:
        if move.href is not None:  # the slide's own link, opened in this tab
            st.container(key=f"{key}_link").html(
                f'<a class="attnviz-slide" href="{html.escape(move.href)}" target="_self">'
                f"{label}</a>"
            )
            return
        st.button(
            label,
            key=key,
            on_click=_moved,
            args=(page, move.step, move.slide),
            disabled=move.step is None,
            width="stretch",
        )


def keys_script():
    """The clicker's keys (→ / Page Down: Next, ← / Page Up: Previous), once per page."""
    st.html(KEYS_JS, unsafe_allow_javascript=True)


def stepper(page, titles, *, first=1, next_action=None):
    """Which steps to draw: a function of a step's number (``first`` to ``first`` + N - 1, one
    per title) that says yes or no.

    Every step, or in projector mode only one (``step=`` in the link, then kept in the
    session), under a slim bar with Previous, "Step k of N" and Next. A step number the link
    gets wrong is said and replaced by the nearest one. ``next_action``, (label, callback,
    args), makes Next (and the clicker's →) a button that does that instead of moving on: the
    Classroom's Reveal before the deck's next slide; it may be a function of the step shown
    that gives one or None (Predict then reveal: Reveal on a question not revealed yet).
    """
    last = first + step_count(titles) - 1
    query = st.query_params.to_dict()
    if not is_present():
        if "step" in st.query_params:
            del st.query_params["step"]
        return lambda k: True
    state, key = st.session_state, _state_key(page)
    slides, position, deck_warnings = read_deck(query, PATHS)
    if key not in state:
        state[key], warnings = read_int(query, "step", low=first, high=last, default=first)
        for warning in warnings + deck_warnings:
            st.warning(warning, icon="⚠️")
    k = min(max(state[key], first), last)
    st.query_params["step"] = str(k)
    if callable(next_action):
        next_action = next_action(k)
    here = url_path(page)
    if slides and slides[position].page != here:  # the link's slide is another page's
        slides = ()
    if slides:  # the deck decides where Next and Previous go
        ahead, behind = deck_moves(slides, position, here, k, first, last)
    else:
        ahead = Move(step=k + 1) if k < last else Move()
        behind = Move(step=k - 1) if k > first else Move()
    keys_script()
    with st.container(key="stepper"):
        back, title, forward = st.columns([1, 5, 1], vertical_alignment="center")
        _button(back, "◀ Previous", behind, BACK_KEY, page)
        where = f" · slide {position + 1} of {len(slides)}" if slides else ""
        name = "" if page == "Home" else f"{page} · "  # the slide's heading: page and step
        title.markdown(f"**{name}{step_label(k, titles, first)}**{where}")
        if next_action is None:
            _button(forward, "Next ▶", ahead, NEXT_KEY, page)
        else:
            label, callback, args = next_action
            forward.button(label, key=NEXT_KEY, on_click=callback, args=args, width="stretch")
    if slides and position == 0 and k == first:  # the deck's first screen: made ready first
        prepare_panel(slides, compact=True)
    return lambda step: step == k


def lesson_steps():
    """``stepper`` over the steps of this page's row in the table of pages."""
    row = this_page()
    return stepper(row.title, row.steps, first=row.first_step)


def after_chart(name):
    """A container for a step's prose that, in projector mode, is shown after the step's chart
    (the projector's CSS moves ``step_meaning`` containers to the end), so the chart comes
    first on the screen; in place otherwise. ``name``: unique on the page."""
    return st.container(key=f"step_meaning_{name}") if is_present() else st.container()


def first_screen(show, first=1):
    """Whether this run draws the page's first screen (its title, learning goal and
    introduction): in projector mode on the first step only, always otherwise."""
    return show(first) or not is_present()


@contextlib.contextmanager
def intro(title=None, goal=None, *, random_weights=False, name="intro"):
    """The page's title and learning goal (its row's ``heading`` and ``goal`` unless given),
    then a container for its introduction (what the ``with`` block draws), opened by the note
    that the weights are random when ``random_weights``. A projector shows all of it after the
    step's chart (``after_chart``): the stepper's bar names the page and the step, so the chart
    comes first."""
    row = this_page() if title is None or goal is None else None
    with after_chart(name):
        st.title(row.heading if title is None else title)
        learning_goal(row.goal if goal is None else goal)
        if random_weights:
            random_weights_note()
        yield
