"""Screenshots of a peer-instruction question: `python -m scripts.peer_screenshots`.

Starts `streamlit run app.py` on a free loopback port; a lecturer in projector mode (1280 x 720)
opens a room and asks a "vote, discuss, revote" question; three phones (390 x 844, touch) join.
Each state is shot on the projector (docs/screenshots/peer_<state>.png) and on a phone
(peer_phone_<state>.png): round 1, round 1 ended, the discussion, round 2, the reveal, the
twin's reveal, the phones blanked ("Look at the projector"), and the lecturer's own tab
without projector mode ("I'm lost" count, the report's downloads: peer_lecturer_laptop.png).
"""

from pathlib import Path

from playwright.sync_api import sync_playwright

from attnviz.classroom.questions import all_questions, question_of
from attnviz.classroom.rounds import twin_of
from attnviz.settings import Settings
from tools.browser import launch_chromium, streamlit_server, wait_for_run
from tools.classroom_browser import PHONE, lecturer_link, open_room, room_link, step, tap_option

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "docs" / "screenshots"
QUESTION = all_questions(Settings(), 0)[0]  # what "Ask this question" asks first
RIGHT, M = QUESTION.answer_index, len(QUESTION.options)
FIRST = [(RIGHT + 1) % M, RIGHT, (RIGHT + 1) % M]  # the phones' taps in round 1
SECOND = [RIGHT, RIGHT, (RIGHT + 2) % M]  # and in round 2: one moves onto the right answer
*_, TWIN = twin_of(
    0, 0, lambda w, s: question_of(all_questions(Settings(seed=w), s), QUESTION.kind)
)
TWIN_TAPS = [TWIN.answer_index, TWIN.answer_index, (TWIN.answer_index + 1) % len(TWIN.options)]


def main():
    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        lecturer = browser.new_page(viewport={"width": 1280, "height": 720})

        def shoot(page, name, full=False):
            wait_for_run(page)
            page.wait_for_timeout(700)
            page.screenshot(path=OUT / f"{name}.png", full_page=full)

        code = open_room(lecturer, url, "Round 1 of 2", kind="Vote, discuss, revote")
        students = [browser.new_context(**PHONE).new_page() for _ in FIRST]  # a browser each
        for student, k in zip(students, FIRST, strict=True):
            student.goto(room_link(url, code))
            tap_option(student, k)
        students[0].locator(".st-key-cls_conf_2 button").tap()
        students[0].wait_for_timeout(1500)
        shoot(students[0], "peer_phone_round1")
        lecturer.wait_for_selector(f"[data-testid=stMetricValue] >> text=3 of {len(FIRST)}")
        shoot(lecturer, "peer_round1")
        step(lecturer)  # end round 1
        lecturer.wait_for_selector("text=has ended", timeout=60_000)
        students[0].wait_for_selector("text=Round 1 has ended", timeout=60_000)
        shoot(lecturer, "peer_locked")
        shoot(students[0], "peer_phone_locked")
        lecturer.get_by_text("2 min").first.click()
        step(lecturer)  # discuss
        students[0].wait_for_selector("text=Discuss with your neighbour", timeout=60_000)
        shoot(lecturer, "peer_discuss")
        shoot(students[0], "peer_phone_discuss")
        step(lecturer)  # round 2
        for student, k in zip(students, SECOND, strict=True):
            student.wait_for_selector("text=In round 1 you answered", timeout=60_000)
            tap_option(student, k)
        students[2].locator(".st-key-cls_conf_2 button").tap()
        shoot(students[0], "peer_phone_round2")
        step(lecturer)  # end round 2
        step(lecturer, "cls_reveal")
        lecturer.wait_for_selector(".st-key-cls_lect_moves .js-plotly-plot", timeout=60_000)
        shoot(lecturer, "peer_reveal")
        lecturer.locator(".st-key-cls_lect_moves").scroll_into_view_if_needed()
        shoot(lecturer, "peer_reveal_charts")
        students[0].wait_for_selector(".st-key-cls_moves .js-plotly-plot", timeout=60_000)
        shoot(students[0], "peer_phone_reveal", full=True)
        step(lecturer, "cls_blank")
        students[0].wait_for_selector("text=Look at the projector", timeout=60_000)
        shoot(students[0], "peer_phone_look_up")
        step(lecturer, "cls_blank")
        step(lecturer, "cls_twin")
        for student, k in zip(students, TWIN_TAPS, strict=True):
            tap_option(student, k)
        step(lecturer, "cls_reveal")
        lecturer.wait_for_selector(".st-key-cls_lect_shares .js-plotly-plot", timeout=60_000)
        lecturer.locator(".st-key-cls_lect_shares").scroll_into_view_if_needed()
        shoot(lecturer, "peer_twin_reveal")
        students[0].wait_for_selector("text=the twin:", timeout=60_000)
        shoot(students[0], "peer_phone_twin_reveal", full=True)
        students[1].locator(".st-key-cls_lost button").tap()  # I'm lost
        laptop = browser.new_page(viewport={"width": 1280, "height": 900})
        laptop.goto(lecturer_link(lecturer))  # the lecturer's own tab, without projector mode
        laptop.locator(".st-key-cls_report_csv").scroll_into_view_if_needed(timeout=90_000)
        laptop.locator("[data-testid=stSidebar] a", has_text="Home").wait_for(timeout=90_000)
        shoot(laptop, "peer_lecturer_laptop")
        browser.close()


if __name__ == "__main__":
    main()
