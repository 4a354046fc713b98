"""attnviz.ui.stepper's pure parts: the bar's count, and where the deck's Next goes."""

from attnviz.links.deck import LECTURE, slide
from attnviz.ui.pages.step_by_step import STEP_TITLES
from attnviz.ui.stepper import _deck_move, step_label


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
