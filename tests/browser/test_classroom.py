"""A lesson in the Classroom, in a browser, on one server: a lecturer (1280 × 720, projector
mode) opens a room; three students join: one on a phone in Chromium (390 × 844, touch) by typing
its code, two as protocol clients by the room's link (tools/streamlit_client.py: a phone's
layout is the Chromium phone's to show); the lecturer asks a question; each student taps an
answer; the lecturer sees how many answered, reveals, and the histogram's counts are the answers
given, on the projector and on every phone. The Chromium phone's page never offers a lecturer's
control, and every tap target is at least 44 px high. After the reveal the lecturer's panel
shows a late phone's join on its own poll, and the L key locks the room to the next."""

import contextlib
import json

import numpy as np
import pytest

from attnviz.links.classroom import BROWSER_COOKIE
from tests.helpers import decode
from tools.browser import error_count, own_browsers, wait_for_chart, wait_for_run
from tools.classroom_browser import PHONE, tab_in_room, tab_tap_option

pytestmark = pytest.mark.browser

LECTURER_ONLY = ["Open a room", "Reveal", "Next question", "Close the room", "Ask this question"]
LECTURER_KEYS = ("cls_open", "cls_ask", "cls_reveal", "cls_next", "cls_close", "cls_lock")
CHOSEN = [1, 0, 1]  # the options the three students tap: B, A, B (the first in Chromium)
MIN_TAP_PX = 44
TIMEOUT = 90  # s: a protocol phone's longest wait on a loaded machine; never a result


def bars(page, key):
    """The bar heights of the chart under ``key``."""
    return page.locator(f".st-key-{key} .js-plotly-plot").evaluate(
        "gd => Array.from(gd._fullData[0].y)"
    )


def sent_bars(tab, key):
    """The bar heights of the chart under ``key`` as the server last sent it to ``tab``."""
    return decode(json.loads(tab.charts[key])["data"][0]["y"]).tolist()


def main_button(page, text):
    return page.locator("[data-testid=stMain] button", has_text=text)


def test_a_lecturer_and_three_phones(browser, server):
    lecturer = browser.new_page(viewport={"width": 1280, "height": 720})
    with own_browsers(browser, **PHONE) as phone, contextlib.ExitStack() as tabs:
        lecturer.goto(f"{server}/Classroom?present=on")
        main_button(lecturer, "Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        assert len(code) == 6
        student = phone()  # a phone is a browser: its own student
        student.goto(f"{server}/Classroom")
        student.get_by_label("Room code (on the projector)").fill(code.lower())
        main_button(student, "Join").tap()
        student.wait_for_selector("text=You are in.", timeout=60_000)
        others = [tab_in_room(tabs, server, code, f"phone {n}", TIMEOUT) for n in (2, 3)]
        for other in others:
            other.until(lambda o=other: o.shown(0, "You are in."), "the room's page")
        main_button(lecturer, "Ask this question").click()
        lecturer.wait_for_selector("text=Answered", timeout=60_000)
        option = student.locator(f".st-key-cls_opt_{CHOSEN[0]} button")
        option.wait_for(timeout=90_000)  # the phone's poll saw the question
        wait_for_run(student)
        option.tap()
        student.wait_for_selector("text=you can change it until the reveal", timeout=90_000)
        heights = student.locator("[data-testid=stMain] button").evaluate_all(
            "bs => bs.filter(b => b.offsetParent).map(b => b.getBoundingClientRect().height)"
        )
        assert min(heights) >= MIN_TAP_PX, heights
        width = student.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["viewport"]["width"]  # one column, nothing off the screen
        for other, k in zip(others, CHOSEN[1:], strict=True):
            tab_tap_option(other, k, acknowledged="Your answer: ")  # its poll saw the question
        # its browser's id: set by the server before any script, HttpOnly
        jar = {cookie["name"]: cookie for cookie in student.context.cookies()}
        assert jar[BROWSER_COOKIE]["httpOnly"], jar
        assert BROWSER_COOKIE not in student.evaluate("document.cookie")
        student.reload()  # the first visit's answer is the same student's after a reload
        student.wait_for_selector("text=you can change it until the reveal", timeout=90_000)
        lecturer.wait_for_selector(f"[data-testid=stMetricValue] >> text=3 of {len(CHOSEN)}")
        before = [len(other.texts) for other in others]
        main_button(lecturer, "Reveal").click()
        wait_for_chart(lecturer, "cls_lect_dist", "gd._fullData[0].y.length > 1")
        counts = np.bincount(CHOSEN, minlength=len(bars(lecturer, "cls_lect_dist")))
        assert bars(lecturer, "cls_lect_dist") == counts.tolist()
        wait_for_chart(student, "cls_dist", "gd._fullData[0].y.length > 1", timeout=90_000)
        assert bars(student, "cls_dist") == counts.tolist()
        text = student.locator("[data-testid=stMain]").inner_text()
        assert "is right" in text or "the right answer is" in text
        for control in LECTURER_ONLY:
            assert main_button(student, control).count() == 0, control
        assert error_count(student) == 0 and error_count(lecturer) == 0
        for other, b, k in zip(others, before, CHOSEN[1:], strict=True):
            other.until(lambda o=other, b=b: o.shown(b, "The answer:"), "the reveal")
            assert sent_bars(other, "cls_dist") == counts.tolist()
            mine = "AB"[k]
            said = other.said(f"Your answer {mine} is right", b)
            assert said or other.said(f"Your answer was {mine};", b), other.texts[b:]
            assert not any(key.startswith(LECTURER_KEYS) for key in other.widgets), other.widgets
            assert not other.exceptions and not other.errors, other.exceptions + other.errors
        second_tab = student.context.new_page()  # the same phone's second tab: one student
        second_tab.goto(student.url)
        second_tab.wait_for_selector("text=The answer:", timeout=90_000)
        said, mine = second_tab.locator("[data-testid=stMain]").inner_text(), "AB"[CHOSEN[0]]
        assert f"Your answer {mine} is right" in said or f"Your answer was {mine};" in said
        # after the reveal nothing of the lecturer's page polls but its panel of who is in the
        # room: it shows a fourth phone's join on its own; the L key locks the room
        tab_in_room(tabs, server, code, "the late phone", TIMEOUT)
        lecturer.wait_for_selector("text=4 in the room", timeout=90_000)
        wait_for_run(lecturer)
        lecturer.locator(".st-key-cls_code h1").click()  # no box has the keys
        lecturer.keyboard.press("l")
        lecturer.locator(".st-key-cls_lock button", has_text="Unlock").wait_for(timeout=60_000)
        refused = tab_in_room(tabs, server, code, "the refused phone", TIMEOUT)
        refused.until(lambda: refused.said("the lecturer has locked it"), "the refusal")
        assert error_count(lecturer) == 0
    lecturer.close()


def test_a_deck_asks_the_room_its_questions(browser, server):
    """A deck with two Classroom slides and a lesson between: the lecturer opens the room on
    the first, the phones get its question; with a clicker's → alone the lecturer reveals, goes
    on to Why scale and to the second Classroom slide, where the controls are back (the room
    followed the lecturer's tab from page to page) and every phone shows its question."""
    from urllib.parse import urlencode

    from attnviz.links.deck import slide, slide_query

    slides = (
        slide("Home"),
        slide("Classroom", question="row_sum"),
        slide("Why_scale", 1),
        slide("Classroom", question="shape"),
    )
    projector = browser.new_context(viewport={"width": 1280, "height": 720})
    phones = browser.new_context(**PHONE)  # one phone
    try:
        lecturer = projector.new_page()
        lecturer.goto(f"{server}/Classroom?{urlencode(slide_query(slides, 1))}")
        lecturer.wait_for_selector("text=This slide asks the class", timeout=90_000)
        main_button(lecturer, "Open a room").click()
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        lecturer.locator(".st-key-cls_reveal button").wait_for(timeout=60_000)  # asked on arrival
        student = phones.new_page()
        student.goto(f"{server}/Classroom?room={code}")
        student.locator(".st-key-cls_opt_1 button").tap(timeout=90_000)
        student.wait_for_selector("text=you can change it until the reveal", timeout=90_000)

        def clicker():
            wait_for_run(lecturer)
            lecturer.locator("[data-testid=stMain] h1").first.click()  # no box has the keys
            lecturer.keyboard.press("ArrowRight")  # what a clicker sends

        clicker()  # the first → reveals
        student.wait_for_selector("text=The answer:", timeout=90_000)
        assert "/Classroom?" in lecturer.url
        for slide_no, page in ((3, "Why_scale"), (4, "Classroom")):
            clicker()
            lecturer.wait_for_url(f"**/{page}?*slide={slide_no}*", timeout=90_000)
        reveal = lecturer.locator(".st-key-cls_reveal button")  # the lecturer's controls
        reveal.wait_for(timeout=90_000)
        student.wait_for_selector("text=Question 2.", timeout=90_000)  # shape, not row_sum
        assert "What shape is the output" in student.locator("[data-testid=stMain]").inner_text()
        assert error_count(lecturer) == 0 and error_count(student) == 0
    finally:
        projector.close()
        phones.close()
