"""Peer instruction in a browser, on one server: a lecturer (1280 × 720, projector mode) and three
students through a "vote, discuss, revote" question: one phone in Chromium (390 × 844, touch:
its tap sizes and width), two as protocol clients (tools/streamlit_client.py), each a browser
of its own with the id the server's first response gave it. Round 1 (nothing of the class
shown), the discussion, round 2 (each phone shows its own first answer), confidence, the reveal
with both rounds and who moved where, the twin, and the lecturer's report downloaded: its CSV
read back gives the taps made, and no student's browser id."""

import contextlib
import csv
import io
from http.cookies import SimpleCookie

import numpy as np
import pytest

from attnviz.classroom.questions import all_questions, question_of
from attnviz.classroom.rounds import twin_of
from attnviz.settings import Settings
from attnviz.ui.visitor import BROWSER_COOKIE as BROWSER
from tools.browser import error_count, own_browsers, wait_for_chart
from tools.classroom_browser import (
    PHONE,
    lecturer_link,
    open_room,
    room_link,
    step,
    tab_in_room,
    tab_tap_option,
    tabs_said,
    tap_option,
)
from tools.streamlit_client import first_visit

pytestmark = pytest.mark.browser

MIN_TAP_PX = 44
QUESTION = all_questions(Settings(), 0)[0]  # what "Ask this question" asks first
RIGHT, M = QUESTION.answer_index, len(QUESTION.options)
FIRST = [(RIGHT + 1) % M, RIGHT, (RIGHT + 1) % M]  # the Chromium phone's first, then the others'
SECOND = [RIGHT, RIGHT, (RIGHT + 2) % M]
*_, TWIN = twin_of(
    0, 0, lambda w, s: question_of(all_questions(Settings(seed=w), s), QUESTION.kind)
)
TWIN_TAPS = [TWIN.answer_index, (TWIN.answer_index + 1) % len(TWIN.options), TWIN.answer_index]
LETTERS = "ABCDEFGH"
TIMEOUT = 90  # s: a protocol phone's longest wait on a loaded machine; never a result


def ys(page, key, trace=0):
    return page.locator(f".st-key-{key} .js-plotly-plot").evaluate(
        f"gd => Array.from(gd._fullData[{trace}].y)"
    )


def downloaded(page, key):
    """The path of the file the download button ``key`` gives. Tried twice: a fragment's rerun
    (the lecturer's counts poll every few seconds) can replace the button while its file is
    made, and the browser then cancels that download (seen under load); a second click that
    fails too fails the test."""
    for attempt in range(2):
        try:
            with page.expect_download(timeout=90_000) as download:
                page.locator(f".st-key-{key} button").click(timeout=90_000)
            return download.value.path()
        except Exception:
            if attempt:
                raise
    raise AssertionError("unreachable")


def test_vote_discuss_revote_twin_and_the_report(browser, server):
    lecturer = browser.new_page(viewport={"width": 1280, "height": 720}, accept_downloads=True)
    with own_browsers(browser, **PHONE) as phone, contextlib.ExitStack() as stack:
        code = open_room(lecturer, server, "Round 1 of 2", kind="Vote, discuss, revote")
        student = phone()  # a phone is a browser: its own student
        student.goto(room_link(server, code))
        tap_option(student, FIRST[0])
        cookies = [first_visit(server) for _ in FIRST[1:]]  # a browser's first page load each
        others = [
            tab_in_room(stack, server, code, f"phone {n}", TIMEOUT, cookie)
            for n, cookie in enumerate(cookies, start=2)
        ]
        for other, k in zip(others, FIRST[1:], strict=True):
            tab_tap_option(other, k)
        tops = student.locator(".st-key-cls_conf button").evaluate_all(
            "bs => bs.map(b => Math.round(b.getBoundingClientRect().top))"
        )
        assert len(tops) == 3 and len(set(tops)) == 1, tops  # one row under the options
        student.locator(".st-key-cls_conf_2 button").tap()  # sure, and wrong
        heights = student.locator("[data-testid=stMain] button").evaluate_all(
            "bs => bs.filter(b => b.offsetParent).map(b => b.getBoundingClientRect().height)"
        )
        assert min(heights) >= MIN_TAP_PX, heights
        assert student.evaluate("document.documentElement.scrollWidth") <= 390
        lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=3 of 3", timeout=60_000)
        since = [len(other.texts) for other in others]
        step(lecturer)  # end round 1
        tabs_said(others, "Round 1 has ended", since)
        assert lecturer.locator(".js-plotly-plot").count() <= 1  # nothing of the class's answers
        for other in others:  # sent so far: the phone's A only
            assert len(other.charts) <= 1, list(other.charts)
        lecturer.get_by_text("1 min").first.click()
        step(lecturer)  # discuss, one minute
        tabs_said(others, "Discuss with your neighbour", since)
        since = [len(other.texts) for other in others]
        step(lecturer)  # round 2
        student.wait_for_selector(
            f"text=In round 1 you answered {LETTERS[FIRST[0]]}", timeout=90_000
        )
        tap_option(student, SECOND[0])
        for other, k, again, b in zip(others, FIRST[1:], SECOND[1:], since, strict=True):
            other.until(
                lambda o=other, b=b, k=k: o.said(f"In round 1 you answered **{LETTERS[k]}**", b),
                "its own first answer",
            )
            tab_tap_option(other, again, b)
        others[1].run(tap="cls_conf_2")  # sure in round 2, and wrong
        taken = lambda: others[1].button_types.get("cls_conf_2") == "primary"  # noqa: E731
        others[1].until(taken, "the confidence tap taken")
        step(lecturer)  # end round 2
        step(lecturer, "cls_reveal")
        wait_for_chart(lecturer, "cls_lect_moves", "gd._fullData.length > 0")
        assert ys(lecturer, "cls_lect_rounds", 0) == np.bincount(FIRST, minlength=M).tolist()
        assert ys(lecturer, "cls_lect_rounds", 1) == np.bincount(SECOND, minlength=M).tolist()
        text = lecturer.locator("[data-testid=stMain]").inner_text()
        assert "2 of 3 changed their answer; 1 moved to the right one" in text
        assert "1 was sure and wrong in round 2" in text
        wait_for_chart(student, "cls_moves", "gd._fullData.length > 0", timeout=90_000)
        for other in others:
            other.until(lambda o=other: "cls_moves" in o.charts, "who moved where")
        since = [len(other.texts) for other in others]
        step(lecturer, "cls_twin")
        tap_option(student, TWIN_TAPS[0])
        for other, k, b in zip(others, TWIN_TAPS[1:], since, strict=True):
            tab_tap_option(other, k, b)
        step(lecturer, "cls_reveal")
        wait_for_chart(lecturer, "cls_lect_shares", "gd._fullData[0].y.length == 3")
        student.wait_for_selector("text=the twin:", timeout=90_000)
        laptop = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        # the lecturer's laptop, not projected: the controls move there
        laptop.goto(lecturer_link(lecturer))
        with open(downloaded(laptop, "cls_report_csv"), encoding="utf-8") as got:
            rows = list(csv.DictReader(io.StringIO(got.read())))
        rounds = {r["round"]: r for r in rows if r["row"] == "round"}
        for name, taps, n in (("1", FIRST, M), ("2", SECOND, M), ("twin", TWIN_TAPS, 0)):
            n = n or len(TWIN.options)
            counts = [int(rounds[name][f"count_{LETTERS[k]}"]) for k in range(n)]
            assert counts == np.bincount(taps, minlength=n).tolist(), name
        assert rounds["2"]["moved_to_right"] == "1" and rounds["2"]["sure_wrong"] == "1"
        assert rounds["1"]["sure_wrong"] == "1"
        ids = [c["value"] for c in student.context.cookies() if c["name"] == BROWSER]
        ids += [SimpleCookie(cookie)[BROWSER].value for cookie in cookies]
        assert len(set(ids)) == len(FIRST) and not any(i in str(rows) for i in ids)
        with open(downloaded(laptop, "cls_report_pdf"), "rb") as got:
            assert got.read(4) == b"%PDF"
        laptop.close()
        assert error_count(lecturer) == 0 and error_count(student) == 0
        for other in others:
            assert not other.exceptions and not other.errors, other.exceptions + other.errors
    lecturer.close()
