"""A lecture run from the clicker alone (1280 × 720, projector mode), after "Prepare the lecture":

* a deck with a sketch slide and a two-round question: every step taken by → (the keyboard,
  no mouse on the projector's page), a phone sketching meanwhile;
* the default deck's Watch a head learn slides, after other visitors have trained enough runs to
  push any unpinned run out of the server's cache (the "45 minutes of other pages", made at
  once: a canary run trained just after Prepare is evicted by them), show the trained model
  without "Train the model".

The Prepare button is pressed with the keyboard too (focused, then Enter). Waits are on
conditions with deadlines, never fixed sleeps."""

import contextlib
from urllib.parse import urlencode

import pytest

from attnviz.limits import CACHE_GPT_RUNS, MIN_GPT_STEPS
from attnviz.links.course import PATHS
from attnviz.links.deck import LECTURE, deck_text, parse_deck, slide, slide_query
from tests.browser.test_classroom_sketch import tap_until
from tools.browser import error_count, own_browsers, wait_for_app, wait_for_run
from tools.classroom_browser import PHONE
from tools.streamlit_client import SyncTab

pytestmark = pytest.mark.browser

PROJECTOR = {"viewport": {"width": 1280, "height": 720}}
BAR = ".st-key-stepper"
NEXT = ".st-key-step_next button, .st-key-step_next_link a"
DECK = (
    "Home/1;Classroom?question=sketch&query=on&mask=causal;"
    "Classroom?question=shape&rounds=2;Why_scale/1"
)
ROUND_STEPS = (  # the two-round question's steps, as the bar's Next says them, in order
    "End round 1",
    "Discuss with your neighbour",
    "Round 2",
    "End round 2",
    "Reveal",
    "Twin question",
    "Reveal the twin",
)
LONG = 240_000  # a page load, a training or a model's loading on a busy machine: a deadline


def prepare(page, server, slides):
    """The Lecture deck page for ``slides``; Prepare pressed from the keyboard; waits until
    it says what it did."""
    page.goto(f"{server}/Lecture_deck?{urlencode({'deck': deck_text(slides)})}")
    wait_for_app(page)
    button = page.locator(".st-key-deck_prepare button")
    button.wait_for(timeout=LONG)
    wait_for_run(page)
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("text=is yours and this deck asks", timeout=LONG)
    wait_for_run(page, LONG)
    assert button.is_disabled()  # everything ready: nothing left to prepare


def wait_bar(page, text):
    """Wait until the deck's bar says ``text`` (a step's label on its Next, where in the deck)."""
    page.wait_for_function(
        "([sel, text]) => { const b = document.querySelector(sel);"
        " return Boolean(b && b.innerText.includes(text)); }",
        arg=[BAR, text],
        timeout=LONG,
    )
    wait_for_run(page, LONG)


def press_next(page, until):
    """→ once, then wait until the bar's text contains ``until``."""
    page.wait_for_function("() => window.__attnvizKeys === true", timeout=LONG)
    wait_for_run(page, LONG)
    page.keyboard.press("ArrowRight")
    wait_bar(page, until)


def top_of(page, key):
    own = page.locator(f".st-key-{key}:not([data-retained])").first  # not a fragment's old copy
    return own.evaluate("e => e.getBoundingClientRect().top")


def test_a_sketch_slide_and_a_two_round_question_on_the_arrow_key_alone(browser, server, artifacts):
    slides, _ = parse_deck(DECK, PATHS)
    n = len(slides)
    projector = browser.new_context(**PROJECTOR)
    with contextlib.ExitStack() as stack:
        stack.callback(projector.close)
        phone = stack.enter_context(own_browsers(browser, **PHONE))
        lecturer = projector.new_page()
        prepare(lecturer, server, slides)
        lecturer.goto(f"{server}/?{urlencode(slide_query(slides, 0))}")
        wait_for_app(lecturer)
        press_next(lecturer, f"slide 2 of {n}")  # the sketch is asked on arrival
        wait_bar(lecturer, "Show sketches ▶")
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=LONG).strip()
        student = phone()
        student.goto(f"{server}/Classroom?room={code}")
        key = "cls_sk_1"
        student.locator(f".st-key-{key}_chart_0 .js-plotly-plot").wait_for(timeout=LONG)
        wait_for_run(student, LONG)
        tap_until(student, key, 1, 5)
        student.locator(f".st-key-{key}_submit button").tap()
        student.wait_for_selector("text=Sketch sent. It is locked", timeout=LONG)
        lecturer.bring_to_front()
        lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=1 of 1", timeout=LONG)
        press_next(lecturer, "Reveal")  # → showed the snapshots
        lecturer.locator(".st-key-cls_sk_snaps .js-plotly-plot").wait_for(timeout=LONG)
        assert top_of(lecturer, "cls_sk_snaps") < 720 / 2  # at the top of the screen
        lecturer.screenshot(path=artifacts / "lecture_sketch_snapshots.png")
        press_next(lecturer, "Next ▶")  # → revealed: the class's result
        lecturer.locator(".st-key-cls_sk_mean .js-plotly-plot").wait_for(timeout=LONG)
        assert top_of(lecturer, "cls_sk_mean") < 720 / 2
        lecturer.screenshot(path=artifacts / "lecture_sketch_reveal.png")
        press_next(lecturer, f"slide 3 of {n}")  # the two-round question, asked on arrival
        for done, step in enumerate(ROUND_STEPS):
            wait_bar(lecturer, f"{step} ▶")
            following = ROUND_STEPS[done + 1] if done + 1 < len(ROUND_STEPS) else "Next"
            press_next(lecturer, f"{following} ▶")
        press_next(lecturer, f"slide 4 of {n}")
        assert error_count(lecturer) == 0 and error_count(student) == 0


def train_elsewhere(server, steps):
    """Another visitor trains the "previous" run of ``steps`` steps (its Train button): a
    protocol tab, which draws nothing (the eviction needs the runs trained, not drawn)."""
    query = f"gpt_task=previous&gpt_steps={steps}"
    page = "Watch_a_head_learn"
    with SyncTab(server, f"visitor {steps}", query, LONG / 1000, page=page) as visitor:
        visitor.run_until("the Train button", widget="gpt_train")
        visitor.run(tap="gpt_train")
        visitor.until(lambda: "gpt_loss" in visitor.charts, f"the loss of {steps} steps")


def test_the_default_deck_after_prepare_keeps_its_watch_run_under_eviction(browser, server):
    slides = LECTURE
    watch = slides.index(slide("Watch_a_head_learn", 0, gpt_task="induction"))
    projector = browser.new_context(**PROJECTOR)
    others = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        lecturer = projector.new_page()
        prepare(lecturer, server, slides)
        canary = MIN_GPT_STEPS  # an unpinned run, trained after Prepare
        train_elsewhere(server, canary)
        for k in range(1, CACHE_GPT_RUNS[0] + 1):  # more runs than the cache keeps
            train_elsewhere(server, canary + k)
        visitor = others.new_page()
        visitor.goto(f"{server}/Watch_a_head_learn?gpt_task=previous&gpt_steps={canary}")
        wait_for_app(visitor)
        wait_for_run(visitor, LONG)
        assert visitor.locator(".st-key-gpt_train button").inner_text().strip() == "Train"
        before = slides[watch - 1]  # the Real model's slide, the one before
        lecturer.goto(f"{server}/{before.page}?{urlencode(slide_query(slides, watch - 1))}")
        wait_for_app(lecturer)
        press_next(lecturer, f"slide {watch + 1} of {len(slides)}")
        wait_for_run(lecturer, LONG)
        text = lecturer.locator("[data-testid=stMain]").inner_text()
        assert "Train the model on step 0 first" not in text
        assert "Trained ✓" in lecturer.locator(".st-key-gpt_train button").inner_text()
        press_next(lecturer, f"slide {watch + 2} of {len(slides)}")
        lecturer.locator(".st-key-gpt_checkpoints .js-plotly-plot").wait_for(timeout=LONG)
        text = lecturer.locator("[data-testid=stMain]").inner_text()
        assert "Train the model on step 0 first" not in text
        assert error_count(lecturer) == 0
    finally:
        projector.close()
        others.close()


def test_predict_reveals_on_the_arrow_key_with_its_proof_on_the_first_screen(browser, server):
    """→ on a question reveals the answer and the chart that proves it, whole in the first
    1280 × 720 screen; the next → goes to the next question."""
    from attnviz.serve.predict_then_reveal import cached_quiz
    from attnviz.settings import Settings

    questions = cached_quiz(Settings(), 0)
    k = next(k for k, q in enumerate(questions, 1) if q.bars)  # a question with rows to draw
    projector = browser.new_context(**PROJECTOR)
    try:
        page = projector.new_page()
        page.goto(f"{server}/Predict_then_reveal?present=on&step={k}")
        wait_for_app(page)
        wait_bar(page, "Reveal ▶")
        press_next(page, "Next ▶")
        chart = page.locator(f".st-key-quiz_row_{k}_0:not([data-retained]) .js-plotly-plot")
        chart.wait_for(timeout=LONG)
        box = chart.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 720, box
        assert (
            f"The answer: {questions[k - 1].answer}"
            in page.locator("[data-testid=stMain]").inner_text()
        )
        press_next(page, f"Question {k + 1}")
        wait_bar(page, "Reveal ▶")
        assert error_count(page) == 0
    finally:
        projector.close()
