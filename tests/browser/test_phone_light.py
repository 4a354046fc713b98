"""The light phone page (attnviz/web/phone) in a browser, on one `streamlit run` server that
serves the App: a lecturer on the Streamlit page (1280 × 720, projector mode) and one Chromium
phone (390 × 844, touch) on the light page, with two more phones as plain HTTP clients, through
a "vote, discuss, revote" question, its twin and a sketch; axe-core clean on each phone screen,
a crafted cross-origin POST refused, and the example's tokens (markup) shown as text."""

from dataclasses import replace
from urllib.parse import quote

import numpy as np
import pytest

from attnviz.classroom.questions import all_questions, question_of
from attnviz.classroom.rounds import twin_of
from attnviz.settings import Settings
from tools.browser import accessibility_problems, own_browsers, wait_for_chart, wait_for_run
from tools.classroom_browser import PHONE, HttpPhone

pytestmark = pytest.mark.browser

MIN_TAP_PX = 44
TOKENS = "<b>x</b> sat <img src=x onerror=alert(1)>"
EXAMPLE = Settings(text=TOKENS)
QUESTION = all_questions(EXAMPLE, 0)[0]  # what "Ask this question" asks first
RIGHT, M = QUESTION.answer_index, len(QUESTION.options)
FIRST = [(RIGHT + 1) % M, RIGHT, (RIGHT + 1) % M]  # the Chromium phone, then the HTTP ones
SECOND = [RIGHT, RIGHT, (RIGHT + 2) % M]
*_, TWIN = twin_of(  # the twin: the example's sentence on fresh numbers
    EXAMPLE.seed,
    0,
    lambda w, s: question_of(all_questions(replace(EXAMPLE, seed=w), s), QUESTION.kind),
)
LETTERS = "ABCDEFGH"


def checked(phone, screen):
    """axe-core finds nothing serious on the phone's ``screen``, and every button is a target
    of at least 44 px; the page does not scroll sideways."""
    assert accessibility_problems(phone) == [], screen
    sizes = phone.locator("button:visible").evaluate_all(
        "bs => bs.map(b => [b.getBoundingClientRect().width, b.getBoundingClientRect().height])"
    )
    assert min(min(s) for s in sizes) >= MIN_TAP_PX, (screen, sizes)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390, screen


def tap(phone, text, role="button"):
    phone.get_by_role(role, name=text, exact=True).tap(timeout=60_000)


def test_a_lecture_on_the_light_page(browser, server, artifacts):
    lecturer = browser.new_page(viewport={"width": 1280, "height": 720})
    with own_browsers(browser, **PHONE) as new_phone:
        lecturer.goto(f"{server}/Classroom?present=on&tokens={quote(TOKENS)}")
        lecturer.locator("button", has_text="Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        link = lecturer.locator(".st-key-cls_join_link code").inner_text().strip()
        assert link.endswith(f"/api/phone?room={code}")
        lecturer.get_by_text("Phones open the room's light page").wait_for(state="attached")
        phone = new_phone()
        dialogs = []  # an alert() would be a token run as a script
        phone.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        phone.goto(f"{server}/api/phone?room={code}")
        phone.get_by_text("You are in. The question appears here").wait_for(timeout=60_000)
        phone.locator(".plot .main-svg").first.wait_for(timeout=60_000)  # A, from Plotly.js
        assert "<b>x</b>" in phone.locator(".plot .ytick text").all_text_contents()  # as text
        others = [HttpPhone(server, code) for _ in FIRST[1:]]
        lecturer.get_by_text("3 in the room").wait_for(timeout=60_000)
        checked(phone, "waiting")

        lecturer.get_by_text("Vote, discuss, revote").click()
        wait_for_run(lecturer)
        lecturer.locator("button", has_text="Ask this question").click()
        phone.get_by_text("Round 1 of 2: vote alone").wait_for(timeout=60_000)
        tap(phone, f"{LETTERS[FIRST[0]]} · {QUESTION.options[FIRST[0]]}")
        phone.get_by_text("How sure are you? (optional)").wait_for(timeout=60_000)
        tops = phone.locator("[aria-label='How sure are you?'] button").evaluate_all(
            "bs => bs.map(b => b.getBoundingClientRect().top)"
        )
        assert len(tops) == 3 and len(set(tops)) == 1  # in one row
        tap(phone, "sure")
        phone.locator("[aria-label='How sure are you?'] [aria-pressed=true]").wait_for()
        checked(phone, "round 1")
        for other, k in zip(others, FIRST[1:], strict=True):
            assert other.post("answer", option=k).status_code == 200

        def step(key="cls_step"):
            wait_for_run(lecturer)
            lecturer.locator(f".st-key-{key} button").click()
            wait_for_run(lecturer)

        lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=3 of 3", timeout=60_000)
        step()  # end round 1
        phone.get_by_text("Round 1 has ended.").wait_for(timeout=60_000)
        lecturer.get_by_text("1 min").first.click()
        step()  # discuss, one minute
        phone.get_by_role("heading", name="Discuss with your neighbour").wait_for()
        checked(phone, "discussion")
        step()  # round 2
        phone.get_by_text(f"In round 1 you answered {LETTERS[FIRST[0]]}.").wait_for()
        tap(phone, f"{LETTERS[SECOND[0]]} · {QUESTION.options[SECOND[0]]}")
        phone.get_by_text(f"Your answer: {LETTERS[SECOND[0]]}, you can change").wait_for()
        for other, k in zip(others, SECOND[1:], strict=True):
            assert other.post("answer", option=k).status_code == 200
        step()  # end round 2
        step("cls_reveal")
        phone.get_by_text("2 of 3 changed their answer; 1 moved to the right one").wait_for()
        phone.get_by_text(f"Your answer {LETTERS[RIGHT]} is right.").wait_for()
        wait_for_chart(lecturer, "cls_lect_rounds", "gd._fullData.length == 2")
        plots = phone.locator(".plot.js-plotly-plot")
        plots.nth(3).wait_for(timeout=60_000)
        first_round = plots.first.evaluate("gd => Array.from(gd._fullData[0].y)")
        assert first_round == np.bincount(FIRST, minlength=M).tolist()
        words = phone.locator("figure details pre").all_text_contents()
        assert len(words) == phone.locator("figure").count() and all(words)
        checked(phone, "reveal")
        phone.screenshot(path=str(artifacts / "phone_light_reveal.png"), full_page=True)

        step("cls_twin")
        tap(phone, f"{LETTERS[TWIN.answer_index]} · {TWIN.options[TWIN.answer_index]}")
        phone.get_by_text("How sure are you? (optional)").wait_for()
        for other in others:
            assert other.post("answer", option=TWIN.answer_index).status_code == 200
        step("cls_reveal")  # reveal the twin
        phone.get_by_text("the twin:").first.wait_for(timeout=60_000)
        checked(phone, "twin's reveal")

        lecturer.get_by_text("Sketch the row", exact=True).first.click(timeout=90_000)
        ask = lecturer.locator("button", has_text="Ask the class to sketch this row")
        ask.click(timeout=90_000)  # redrawn by the lecturer's polls: a loaded machine retries
        phone.get_by_text("Sketch the row of A for query").wait_for(timeout=60_000)
        keys = phone.locator(".sketch .key").all_text_contents()
        assert keys[0] == "<b>x</b>" and phone.locator("main b, main img").count() == 0
        tap(phone, "key sat: bar 4 of 5")
        phone.get_by_text("sat 0.50").wait_for()  # 4 of 1 + 4 + 1 + 1 + 1 = 8
        checked(phone, "sketch")
        tap(phone, "Submit")
        phone.get_by_text("Sketch sent. It is locked").wait_for(timeout=60_000)
        assert others[0].post("sketch", levels=[1] * len(keys)).status_code == 200
        wait_for_run(lecturer)
        lecturer.locator(".st-key-cls_sk_reveal button").click()
        phone.get_by_text("Your distance to the true row:").wait_for(timeout=60_000)
        phone.locator(".plot .ytick text").first.wait_for(timeout=60_000)
        assert "<b>x</b>" in phone.locator(".plot .ytick text").all_text_contents()
        checked(phone, "sketch's reveal")
        phone.screenshot(path=str(artifacts / "phone_light_sketch.png"), full_page=True)

        crafted = phone.context.request.post(  # the phone's own cookie, another site's Origin
            f"{server}/api/rooms/{code}/lost",
            headers={"Origin": "https://evil.example", "Content-Type": "application/json"},
            data="{}",
        )
        assert crafted.status == 403 and "own page" in crafted.json()["error"]
        assert dialogs == []
        for other in others:
            other.http.close()
    lecturer.close()
