"""Screenshots of the Classroom for the README: `python -m scripts.classroom_screenshots`.

Starts `streamlit run app.py` on a free loopback port; a lecturer in projector mode (1280 x 720)
opens a room and asks a question; three phones (390 x 844, touch) join on the light page
(/api/phone, what the join link opens when the App serves the app) and answer; the script
shoots the projector while answers come in and after the reveal, and a phone before and after
it: docs/screenshots/Classroom_projector.png, Classroom_reveal.png, Classroom_phone.png and
Classroom_phone_reveal.png; then the lecturer's link on a desk (not the projector: the health
panel, the join link as plain text), Classroom_lecturer.png, and the room closed with its
one-click new room, Classroom_ended.png.
"""

from pathlib import Path

from playwright.sync_api import sync_playwright

from tools.browser import launch_chromium, streamlit_server, wait_for_run
from tools.classroom_browser import PHONE, open_room

ROOT = Path(__file__).resolve().parent.parent


OUT = ROOT / "docs" / "screenshots"
CHOSEN = [1, 0, 1]


def main():
    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        lecturer = browser.new_page(viewport={"width": 1280, "height": 720})
        code = open_room(lecturer, url, "Answered")
        phone = {**PHONE, "device_scale_factor": 2}
        students = [browser.new_context(**phone).new_page() for _ in CHOSEN]  # a browser each
        for student, k in zip(students, CHOSEN, strict=True):
            student.goto(f"{url}/api/phone?room={code}")
            option = student.get_by_role("button").filter(has_text=f"{'ABCDEFGH'[k]} · ")
            option.first.tap(timeout=60_000)
            student.get_by_text("you can change it until the reveal").wait_for(timeout=60_000)
        students[0].screenshot(path=OUT / "Classroom_phone.png", full_page=True)
        lecturer.wait_for_selector(f"[data-testid=stMetricValue] >> text=3 of {len(CHOSEN)}")
        lecturer.locator("h1").first.scroll_into_view_if_needed()
        lecturer.wait_for_timeout(500)
        lecturer.screenshot(path=OUT / "Classroom_projector.png")
        lecturer.locator("button", has_text="Reveal").click()
        lecturer.wait_for_selector(".st-key-cls_lect_dist .js-plotly-plot", timeout=60_000)
        wait_for_run(lecturer)
        lecturer.locator(".st-key-cls_lect_dist").scroll_into_view_if_needed()
        lecturer.wait_for_timeout(500)
        lecturer.screenshot(path=OUT / "Classroom_reveal.png")
        students[0].locator(".plot.js-plotly-plot").first.wait_for(timeout=60_000)
        students[0].get_by_text("The answer:").first.wait_for(timeout=60_000)
        students[0].screenshot(path=OUT / "Classroom_phone_reveal.png", full_page=True)
        link = lecturer.locator("[data-testid=stExpander] [data-testid=stCode] code")
        link = link.text_content()
        desk = browser.new_page(viewport={"width": 1280, "height": 1000})  # not the projector
        desk.goto(url + link[link.index("/Classroom") :])
        desk.wait_for_selector(".st-key-cls_health >> text=Phones connected now", timeout=90_000)
        wait_for_run(desk)
        desk.wait_for_timeout(2000)  # the phones' polls: connected now
        desk.locator(".st-key-cls_health").scroll_into_view_if_needed()
        desk.screenshot(path=OUT / "Classroom_lecturer.png", full_page=True)
        desk.locator("button", has_text="Close the room").click()
        desk.wait_for_selector(".st-key-cls_reopen button", timeout=60_000)
        wait_for_run(desk)
        desk.screenshot(path=OUT / "Classroom_ended.png")
        browser.close()


if __name__ == "__main__":
    main()
