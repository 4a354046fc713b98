"""attnviz.ui.stepper's pure parts: the bar's count, and where the deck's Next goes."""

import re
from urllib.parse import parse_qs, urlsplit

from attnviz.links.course import PAGES, PATHS
from attnviz.links.deck import LECTURE, slide
from attnviz.links.deck_outline import outline
from attnviz.links.steps import PAGE_STEPS
from attnviz.ui.pages.step_by_step import STEP_TITLES
from attnviz.ui.stepper import _deck_move, deck_moves, step_label, url_path
from tests.helpers import ROOT


def test_the_count_is_the_number_of_steps_whatever_they_start_from():
    assert step_label(0, STEP_TITLES, 0) == "Step 1 of 11: 0. By hand: two tokens"
    assert step_label(10, STEP_TITLES, 0) == "Step 11 of 11: 10. Matrix dimensions"
    titles = ("1. a", "2. b", "3. c")
    assert step_label(3, titles, 1) == "Step 3 of 3: 3. c"
    assert step_label(1, titles[:2], 1) == "Step 1 of 2: 1. a"


def test_next_stays_on_the_page_for_its_next_step_and_opens_a_link_for_another_page():
    k = LECTURE.index(slide("Step_by_step", 3))
    move = _deck_move(LECTURE, k, 1, "Step_by_step", {})
    assert (move.step, move.href, move.slide) == (4, None, k + 1)
    last = LECTURE.index(slide("Step_by_step", 8))  # then the same page with an edit: a link
    move = _deck_move(LECTURE, last, 1, "Step_by_step", {})
    assert move.step is None and "edit=1%2C0%2C5" in move.href and "slide=" in move.href
    assert _deck_move(LECTURE, len(LECTURE) - 1, 1, "Predict_then_reveal", {}).slide is None
    home = _deck_move(LECTURE, 1, -1, "Attention_as_geometry", {})
    assert home.href.startswith("./?") and "present=on" in home.href


def test_a_slide_without_a_step_walks_through_the_pages_steps_then_leaves():
    """W1: Next on a step-less slide (Home, Predict) goes through the page's own steps, then to
    the deck's next slide; Previous back through them first. A slide with a step is one screen."""
    home = LECTURE.index(slide("Home"))
    ahead, behind = deck_moves(LECTURE, home, "", 1, 1, 2)
    assert (ahead.step, ahead.href, ahead.slide) == (2, None, home) and behind.slide is None
    ahead, behind = deck_moves(LECTURE, home, "", 2, 1, 2)
    assert "Attention_as_geometry" in ahead.href and (behind.step, behind.slide) == (1, home)
    predict = LECTURE.index(slide("Predict_then_reveal"))
    walked = []
    step = 1
    while (move := deck_moves(LECTURE, predict, "Predict_then_reveal", step, 1, 5)[0]).step:
        walked.append(step := move.step)
    assert walked == [2, 3, 4, 5] and move.href.startswith("./Classroom?")
    three = LECTURE.index(slide("Step_by_step", 3))  # a slide with its step: the next slide
    assert deck_moves(LECTURE, three, "Step_by_step", 3, 0, 10)[0].step == 4


def test_every_steppers_page_name_is_its_url_path():
    """A page's stepper names it by its title ("Multi-head"); the deck finds the page by its URL
    path (Multi_head): every row's title, and every name a page's own stepper is given in
    app_pages/ and attnviz/ui/pages/, maps to a path there is."""
    assert all(url_path(page.title) == page.path for page in PAGES)
    sources = [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "attnviz/ui/pages").glob("*.py")]
    names = {
        m.group(1)
        for path in sources
        for m in re.finditer(r'stepper\(\s*"([^"]+)"', path.read_text(encoding="utf-8"))
    }
    assert {"Step by step", "Classroom", "Predict then reveal"} <= names
    assert {url_path(name) for name in names} <= PATHS


def test_the_default_deck_in_words():
    text = outline(LECTURE)
    assert text.startswith(
        "Home (every step); Attention as geometry (every step); Step by step, "
        "steps 0 to 8; Step by step with edit=1,0,5, steps 1, 5 and 7;"
    )
    assert "Watch a head learn with gpt_task=induction, steps 0 and 2" in text
    # the Classroom has no steps: its slide is one screen, not "every step" of it
    assert text.endswith("; Predict then reveal (every step); Classroom with question=row_sum")


def first_screen_page():
    """A two-step page with a first screen, as the pages write it."""
    import streamlit as st

    from attnviz.ui.stepper import first_screen, intro, stepper

    show = stepper("Test page", ("1. One", "2. Two"))
    if first_screen(show):
        with intro("The title", "the goal.", random_weights=True):
            st.markdown("The introduction.")
    if show(2):
        st.markdown("Step two.")


def _first_screen_at(present, step=None):
    from streamlit.testing.v1 import AppTest

    from attnviz.charts.finish import Display
    from attnviz.ui.sidebar import DISPLAY_KEY
    from tests.helpers import TIMEOUT

    at = AppTest.from_function(first_screen_page, default_timeout=TIMEOUT)
    at.session_state[DISPLAY_KEY] = Display(present)
    if step is not None:
        at.query_params["step"] = str(step)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return [t.value for t in at.title], [m.value for m in at.markdown], len(at.info)


def test_the_first_screen_is_drawn_on_every_run_but_a_projectors_later_steps():
    goal = "**What you will learn:** the goal."
    titles, texts, notes = _first_screen_at(False)  # every step: the first screen too
    assert titles == ["The title"] and notes == 1
    assert texts.index(goal) < texts.index("The introduction.") < texts.index("Step two.")
    titles, texts, notes = _first_screen_at(True, step=1)
    assert titles == ["The title"] and goal in texts and notes == 1
    titles, texts, notes = _first_screen_at(True, step=2)  # a later step: no title, no intro
    assert titles == [] and notes == 0 and "The introduction." not in texts
    assert "Step two." in texts


def _walk(slides, screen, backwards):
    """The screen (slide position, step) that Next (or Previous) reaches from ``screen``, as a
    browser follows the bar: a step of this page, or another slide's link read back."""
    position, step = screen
    page = slides[position].page
    first, last = PAGE_STEPS.get(page, (1, 1))
    ahead, behind = deck_moves(slides, position, page, step, first, last)
    move = behind if backwards else ahead
    if move.slide is None:
        return None
    if move.step is not None:
        return move.slide, move.step
    query = parse_qs(urlsplit(move.href).query)
    there = slides[move.slide]
    assert query["slide"] == [str(move.slide + 1)]
    if "step" in query:
        return move.slide, int(query["step"][0])
    return move.slide, PAGE_STEPS.get(there.page, (1, 1))[0]


def test_previous_shows_nexts_screens_in_reverse():
    """W1: "Previous goes back the same way": from the deck's last screen, Previous retraces
    every screen Next showed (a whole-page slide entered at its last step), none skipped."""
    deck = (
        *LECTURE,
        slide("Multi_head"),
        slide("Multi_head", 2),
        slide("Multi_head"),
        slide("Multi_head", mask="causal"),
        slide("Work_it_out"),
    )
    forward = [(0, 1)]
    while (screen := _walk(deck, forward[-1], backwards=False)) is not None:
        forward.append(screen)
    backward = [forward[-1]]
    while (screen := _walk(deck, backward[-1], backwards=True)) is not None:
        backward.append(screen)
    assert backward == forward[::-1]
    home, geometry = LECTURE.index(slide("Home")), LECTURE.index(slide("Attention_as_geometry"))
    assert (geometry, 2) in backward and (home, 2) in backward  # the review's skipped two


def walk(deck, press="ahead"):
    """Every screen (slide index, page, step) a clicker's → shows from ``deck``'s first slide
    to its end, as deck_moves leads: a move within the page is its step, a move to another
    slide opens that slide's step (a step-less slide: its page's first step)."""
    from attnviz.links.steps import PAGE_STEPS

    def steps(k):  # a page without steps (the Classroom) is one screen
        return PAGE_STEPS.get(deck[k].page, (1, 1))

    def opened(k):
        return deck[k].step if deck[k].step is not None else steps(k)[0]

    k, step, screens = 0, opened(0), []
    while True:
        screens.append((k, deck[k].page, step))
        first, last = steps(k)
        ahead, _ = deck_moves(deck, k, deck[k].page, step, first, last)
        if ahead.slide is None:
            return screens
        step = ahead.step if ahead.step is not None else opened(ahead.slide)
        k = ahead.slide
        assert len(screens) < 10 * len(deck), "the deck does not end"


def test_the_default_deck_runs_from_its_first_to_its_last_slide_on_next_alone():
    """The clicker's → from the first slide: every slide reached, in order; a slide without a
    step walks its page's steps (Home's two, Predict's every question); the deck ends on its
    last slide (a lecturer's keys: tests/browser/test_projector.py)."""
    from attnviz.links.steps import PAGE_STEPS

    screens = walk(LECTURE)
    slides = [k for k, _, _ in screens]
    assert slides == sorted(slides) and set(slides) == set(range(len(LECTURE)))
    for k, part in enumerate(LECTURE):
        steps = [step for j, _, step in screens if j == k]
        if part.step is None and part.page in PAGE_STEPS:  # the whole page, step by step
            first, last = PAGE_STEPS[part.page]
            assert steps == list(range(first, last + 1)), (part, steps)
        else:  # one screen
            assert len(steps) == 1, (part, steps)
    assert screens[-1][0] == len(LECTURE) - 1


def step_header_page():
    """One step's header, as the step page draws it."""
    from attnviz.ui.text import step_header

    step_header("3. Key", "K = XW_K", r"K \in \mathbb{R}^{4 \times 2}", "What K means.")


def test_a_steps_formula_and_meaning_go_after_its_chart_on_a_projector_only():
    """In projector mode the session's Display puts them in a ``step_meaning`` container (the
    projector's CSS moves it after the chart); on a screen they stay under the header."""
    from streamlit.testing.v1 import AppTest

    from attnviz.charts.finish import Display
    from attnviz.ui.sidebar import DISPLAY_KEY
    from tests.helpers import TIMEOUT

    for present in (False, True):
        at = AppTest.from_function(step_header_page, default_timeout=TIMEOUT)
        at.session_state[DISPLAY_KEY] = Display(present)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        header, *rest = at.main.children.values()
        meaning = [node.key for node in rest if (node.key or "").startswith("step_meaning_")]
        assert header.value == "3. Key" and len(meaning) == present
        assert "K = XW_K" in at.latex[0].value and at.markdown[0].value == "What K means."
