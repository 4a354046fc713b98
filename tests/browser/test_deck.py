"""The default lecture deck, as a lecturer gives it: from its first slide to its last with the
clicker's keys only (ArrowRight and PageDown, as the deck binds them, alternately). Every screen
has the deck's bar ("slide k of N"), every slide is reached in order, and a slide without a
step walks through its page's steps (Home's two, Predict's five questions)."""

import re
import time

import pytest

from attnviz.links.deck import LECTURE
from tools.browser import error_count, wait_for_app, wait_for_run

pytestmark = pytest.mark.browser

SLIDE_OF = re.compile(r"slide (\d+) of (\d+)")
STEP_OF = re.compile(r"Step (\d+) of (\d+)")
BAR = ".st-key-stepper"
MOVE_TIMEOUT_S = 240  # a page load on a busy machine: generous, never a result


def _screen(page):
    """(slide, step, steps) the deck bar shows, once the run is over; fails without a bar."""
    wait_for_app(page)
    page.wait_for_selector(BAR, timeout=120_000)
    wait_for_run(page)
    bar = page.locator(BAR).inner_text()
    slide, step = SLIDE_OF.search(bar), STEP_OF.search(bar)
    assert slide and step, f"{page.url}: the bar has no slide counter: {bar!r}"
    assert int(slide[2]) == len(LECTURE)
    return int(slide[1]), int(step[1]), int(step[2])


def _bar_text(page):
    try:
        return page.url, page.locator(BAR).inner_text(timeout=1_000)
    except Exception:  # a page that is loading: no bar yet
        return page.url, None


def test_the_default_deck_runs_from_first_to_last_slide_on_the_clickers_keys(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    screens = []
    try:
        page.goto(f"{server}/?deck=lecture&slide=1&present=on")
        for press in range(80):
            screen = _screen(page)
            path = page.url.split("?")[0].rsplit("/", 1)[-1]
            if not screens or screens[-1] != (path, *screen):  # a rerun that only rewrote
                screens.append((path, *screen))  # the address is the same screen
            assert error_count(page) == 0, page.url
            slide, step, steps = screen
            if slide == len(LECTURE) and step == steps:
                break  # the last step of the last slide: the deck's end (what → does there
                # depends on the room's state, e.g. the Classroom asks or reveals)
            next_button = page.locator(".st-key-step_next button")
            if next_button.count() and next_button.is_disabled():
                break  # the deck's end
            page.wait_for_function("() => window.__attnvizKeys === true")
            before = _bar_text(page)
            page.keyboard.press(("ArrowRight", "PageDown")[press % 2])
            deadline = time.monotonic() + MOVE_TIMEOUT_S
            while _bar_text(page) == before:
                assert time.monotonic() < deadline, f"the key did nothing on {page.url}"
                page.wait_for_timeout(500)
    finally:
        context.close()
    slides = [s for _, s, _, _ in screens]
    assert slides == sorted(slides) and set(slides) == set(range(1, len(LECTURE) + 1))
    steps, counts = {}, {}
    for path, slide, step, count in screens:
        steps.setdefault((path, slide), []).append(step)
        counts[path, slide] = count
    home, predict = 1, LECTURE.index(LECTURE[-2]) + 1
    assert steps["", home] == [1, 2]  # Home, a slide without a step: both steps
    questions = counts["Predict_then_reveal", predict]  # every question, in order
    assert questions >= 5 and steps["Predict_then_reveal", predict] == list(range(1, questions + 1))
    assert screens[-1][0] == "Classroom" and screens[-1][1] == len(LECTURE)
