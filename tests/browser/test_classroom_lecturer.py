"""The lecturer's own credential, in Chromium, under the App that `streamlit run app.py` serves:
the room's controls are a cookie the server sets (``attnviz_lecturer``: HttpOnly, no script
reads it, SameSite=Strict) that names the room and ends with it, and Close clears it; a copy of
the lecturer's browser id in another browser holds no controls (issue 45's attack)."""

import time

import pytest

from attnviz.classroom.credential import LECTURER_COOKIE
from attnviz.limits import ROOM_LIFETIME_SECONDS
from attnviz.links.classroom import BROWSER_COOKIE

pytestmark = pytest.mark.browser


def main_button(page, text):
    return page.locator("[data-testid=stMain] button", has_text=text)


def jar(context):
    return {cookie["name"]: cookie for cookie in context.cookies()}


def until_jar(page, holds, what, timeout=60):
    """Wait (a deadline, polling) until ``holds(jar)`` for ``page``'s browser context: the
    page's script asks the server for the cookie after the page is drawn."""
    deadline = time.monotonic() + timeout
    while not holds(jar(page.context)):
        assert time.monotonic() < deadline, f"no {what} within {timeout} s: {jar(page.context)}"
        page.wait_for_timeout(100)
    return jar(page.context)


def test_the_lecturers_cookie_is_httponly_and_ends_with_the_room(browser, server):
    lecturer_context = browser.new_context(viewport={"width": 1280, "height": 900})
    thief_context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        refused = []  # the first hand-over meets a store that is away: the page asks again

        def away_once(route):
            if refused:
                return route.continue_()
            refused.append(route.request.url)
            return route.fulfill(status=503, json={"error": "The room's store is away."})

        lecturer_context.route("**/api/lecturer", away_once)
        lecturer = lecturer_context.new_page()
        lecturer.goto(f"{server}/Classroom")
        main_button(lecturer, "Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        opened = time.time()
        cookies = until_jar(lecturer, lambda j: LECTURER_COOKIE in j, "lecturer cookie")
        assert len(refused) == 1
        cookie = cookies[LECTURER_COOKIE]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
        assert cookie["value"].startswith(f"{code}."), cookie  # it names the room
        assert abs(cookie["expires"] - (opened + ROOM_LIFETIME_SECONDS)) < 120  # its end
        assert LECTURER_COOKIE not in lecturer.evaluate("document.cookie")

        # the lecturer's browser id, copied into another browser: no controls there
        stolen = dict(cookies[BROWSER_COOKIE])
        thief_context.add_cookies([stolen])
        thief = thief_context.new_page()
        thief.goto(f"{server}/Classroom")
        main_button(thief, "Open a room").wait_for(timeout=90_000)  # the landing page
        assert main_button(thief, "Close the room").count() == 0
        assert jar(thief_context)[BROWSER_COOKIE]["value"] == stolen["value"]

        lecturer.reload()  # the cookie brings the controls back
        main_button(lecturer, "Close the room").click(timeout=90_000)
        lecturer.wait_for_selector(f"text=Room {code} has ended", timeout=60_000)
        until_jar(lecturer, lambda j: LECTURER_COOKIE not in j, "cleared cookie")
    finally:
        lecturer_context.close()
        thief_context.close()


def test_a_refused_hand_over_is_said_in_the_servers_words(browser, server):
    """A hand-over the server refuses (not a store that is away: that is asked again) leaves
    the controls in this tab, and the page says why and what to do, the reason as text."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    reason = "Room <b>X</b> is closed: open a new room."  # markup stays text
    context.route(
        "**/api/lecturer", lambda route: route.fulfill(status=409, json={"error": reason})
    )
    try:
        lecturer = context.new_page()
        lecturer.goto(f"{server}/Classroom")
        main_button(lecturer, "Open a room").click(timeout=90_000)
        note = lecturer.locator("#attnviz-seat-note")
        note.get_by_text("This browser could not keep the room's controls").wait_for(timeout=60_000)
        assert reason in note.inner_text() and note.locator("b").count() == 0
        assert "copy the Lecturer link" in note.inner_text()
        assert main_button(lecturer, "Close the room").count() == 1  # this tab keeps them
        assert LECTURER_COOKIE not in jar(context)
    finally:
        context.close()
