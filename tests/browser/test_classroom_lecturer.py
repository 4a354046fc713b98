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
        lecturer = lecturer_context.new_page()
        lecturer.goto(f"{server}/Classroom")
        main_button(lecturer, "Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        opened = time.time()
        cookies = until_jar(lecturer, lambda j: LECTURER_COOKIE in j, "lecturer cookie")
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
