"""The Classroom's choreography in Chromium (Playwright pages), written once for the browser
tests (tests/browser/) and the screenshot scripts (scripts/classroom_screenshots.py,
peer_screenshots.py): the lecturer's tab opens a room and asks, then steps it on; a phone joins
and taps an option. What each then checks or shoots stays with it. A phone may also be a
protocol client (tools/streamlit_client.SyncTab, no browser): ``tab_in_room`` opens its link,
``tab_tap_option`` and ``tabs_said`` are its taps and waits.

    code = open_room(lecturer, url, asked="Round 1 of 2", kind="Vote, discuss, revote")
    student = phone()                        # a browser of its own (browser.own_browsers)
    student.goto(room_link(url, code))
    tap_option(student, 1)                   # B, and the phone says it was taken
    step(lecturer)                           # the next phase (cls_reveal, cls_twin ...)
    tab = tab_in_room(stack, url, code, "phone 2", timeout=90)   # a protocol phone, no browser
    tab_tap_option(tab, 1)                   # B, and the phone says it was taken
    other = HttpPhone(url, code)             # a light phone: the room's HTTP API, no page
    other.post("answer", option=1)
"""

import requests

from tools.browser import wait_for_run
from tools.streamlit_client import SyncTab

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def open_room(lecturer, url, asked, kind=None):
    """On the lecturer's tab ``lecturer``: open a room of the app at ``url`` in projector mode,
    choose the question's ``kind`` (its label, e.g. "Vote, discuss, revote") if given, ask the
    first question and wait for the text ``asked`` the projector then shows. The room's code."""
    lecturer.goto(f"{url}/Classroom?present=on")
    lecturer.locator("button", has_text="Open a room").click(timeout=90_000)
    code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
    if kind is not None:
        lecturer.get_by_text(kind, exact=True).click()  # not a sentence naming it
        wait_for_run(lecturer)
    lecturer.locator("button", has_text="Ask this question").click()
    lecturer.wait_for_selector(f"text={asked}", timeout=60_000)
    return code


def room_link(url, code):
    """The link a phone opens to join room ``code`` of the app at ``url``."""
    return f"{url}/Classroom?room={code}"


def tap_option(student, k, acknowledged="How sure are you?"):
    """On the phone ``student``: tap option ``k`` (0 is A) once its run is over, and wait for the
    text ``acknowledged`` that says the answer was taken."""
    option = student.locator(f".st-key-cls_opt_{k} button")
    option.wait_for(timeout=90_000)
    wait_for_run(student)
    option.tap()
    student.wait_for_selector(f"text={acknowledged}", timeout=90_000)


def step(lecturer, key="cls_step"):
    """Press the lecturer's button ``key`` (cls_step: on to the next phase; cls_reveal, cls_twin,
    cls_blank) once the tab's run is over, and wait for the run it starts."""
    wait_for_run(lecturer)
    lecturer.locator(f".st-key-{key} button").click()
    wait_for_run(lecturer)


def lecturer_link(lecturer):
    """The lecturer's own link, read from its expander on the projector (opened for it)."""
    lecturer.get_by_text("Lecturer link (keep it off the projector)").click()
    code = lecturer.locator("[data-testid=stExpander] [data-testid=stCode] code")
    return code.inner_text(timeout=30_000).strip()


def tab_in_room(stack, url, code, name, timeout, cookie=None):
    """A protocol phone ``name`` that has opened the link of room ``code`` of the app at ``url``
    (its first run sent), with ``cookie`` (a browser's: ``streamlit_client.first_visit``) or
    none (a browser of its own); closed with the ExitStack ``stack``."""
    tab = stack.enter_context(SyncTab(url, name, f"room={code}", timeout, cookie))
    tab.run()
    return tab


def tab_tap_option(tab, k, since=0, acknowledged="How sure are you?"):
    """On the protocol phone ``tab`` (a SyncTab): once a question to answer has come after its
    ``since``-th text, tap option ``k`` (0 is A) and wait for a text starting ``acknowledged``;
    the number of texts before the tap (for ``tab.said``)."""
    tab.until(lambda: tab.shown(since, "Tap your answer"), "a question to answer")
    return tab.run_until("the answer taken", tap=f"cls_opt_{k}", starts=acknowledged)


def tabs_said(tabs, words, since):
    """Wait until each protocol phone ``tabs[j]`` has been sent a text containing ``words``
    after its ``since[j]``-th."""
    for tab, before in zip(tabs, since, strict=True):
        tab.until(lambda t=tab, b=before: t.said(words, b), repr(words))


class HttpPhone:
    """A phone as a plain HTTP client of the room's API (attnviz/web/phone): joined on creation,
    with its own cookie, so its own student."""

    def __init__(self, server, code):
        self.http = requests.Session()  # keeps the cookie the server gives it
        self.url, self.origin = f"{server}/api/rooms/{code}", server
        assert self.post("join").status_code == 200

    def post(self, what, **body):
        headers = {"Origin": self.origin}
        return self.http.post(f"{self.url}/{what}", json=body, headers=headers, timeout=60)

    def state(self):
        """What the room's GET state says to this phone (a dict)."""
        response = self.http.get(f"{self.url}/state", timeout=60)
        assert response.status_code == 200, response.text
        return response.json()
