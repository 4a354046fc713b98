"""Screenshots of every page for the README: `python -m scripts.screenshots` (needs chromium).

`python -m scripts.screenshots Masks_and_temperature inspector` takes only those (page names
as in their URLs, Home for the home page, inspector for the cell inspector, projector for the
step page in projector mode at 1280 x 720, spread for the step page with one entry of X changed,
token_lines for the step page's A as token lines at 1280 x 720, worksheet for Work it out's
worksheet PDF and its key, rendered with pdftoppm, present for every page's first screen in
projector mode at 1280 x 720, as docs/screenshots/present_<page>.png, phone for Step by step,
Predict then reveal and Attention as geometry on a phone, 390 x 844 with touch, as
docs/screenshots/phone_<page>.png).

Starts `streamlit run app.py` on a free loopback port, opens each page in headless Chromium and
writes docs/screenshots/<page>.png (the page from the top, at most MAX_HEIGHT pixels), plus the
cell inspector after a click. On the quiz it answers two questions, so both reveals show.
"""

import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from attnviz import Settings, compute, lessons
from attnviz.links.course import PAGES
from tools.browser import (
    cell_centre,
    launch_chromium,
    show_view,
    streamlit_server,
    wait_for_app,
)

ROOT = Path(__file__).resolve().parent.parent


OUT = ROOT / "docs" / "screenshots"
WIDTH, MAX_HEIGHT = 1400, 3600


def shoot(page, name):
    """Let the page settle (2 s: Plotly draws after the page is ready), then write OUT / name
    and say so."""
    time.sleep(2)
    page.screenshot(path=OUT / name)
    print("wrote", OUT / name)


def answer_two(page):
    """Answer the first question wrongly and the second rightly, so both reveals show."""
    example = compute(Settings())
    questions = lessons.quiz(example.result, example.labels, 0, P=example.P)
    wrong = next(o for o in questions[0].options if o != questions[0].answer)
    for k, choice in enumerate([wrong, questions[1].answer]):
        group = page.locator("[data-testid=stMain] [data-testid=stRadio]").nth(k)
        group.locator("[role=radiogroup] label").filter(has_text=choice).first.click()
        page.wait_for_selector(f":nth-match(:text('Why:'), {k + 1})", timeout=60_000)
        wait_for_app(page)


EXERCISE = "ex_level=2&ex_seed=7"  # the exercise Work it out's screenshot and worksheet show


def work_two(page):
    """Work it out: the first blank right, the second wrong with its first hint."""
    from attnviz.exercises import make_exercise
    from attnviz.exercises.notation import shown

    first, second = make_exercise(2, 7).blanks[:2]
    for blank, text in ((first, shown(first.expected, 6)), (second, "9")):
        box = page.locator(f".st-key-ex_ans_{blank.key} input")
        box.fill(text)
        box.press("Enter")
        page.wait_for_selector("text=Not yet" if text == "9" else "text=✓ Right", timeout=60_000)
        wait_for_app(page)
    page.locator(f".st-key-ex_hint_{second.key} button").click()
    page.wait_for_selector("text=💡", timeout=60_000)
    wait_for_app(page)


def worksheet_png():
    """docs/screenshots/worksheet.png: the worksheet of EXERCISE and its key side by side
    (pdftoppm, from Debian's poppler-utils, renders the PDF's two pages)."""
    import subprocess
    import tempfile

    from PIL import Image

    from attnviz.exercises.pdf import worksheet_pdf

    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "worksheet.pdf"
        pdf.write_bytes(worksheet_pdf(2, 7))
        subprocess.run(["pdftoppm", "-r", "90", "-png", pdf, Path(tmp) / "p"], check=True)
        pages = [Image.open(p) for p in sorted(Path(tmp).glob("p-*.png"))]
        out = Image.new("RGB", (sum(p.width for p in pages) + 20, pages[0].height), "#bbb")
        for k, p in enumerate(pages):
            out.paste(p, (k * (p.width + 20), 0))
        out.save(OUT / "worksheet.png")
    print("wrote", OUT / "worksheet.png")


PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
PHONE_PAGES = ("Step_by_step", "Predict_then_reveal", "Attention_as_geometry")


def phone_pngs(browser, url):
    """docs/screenshots/phone_<page>.png: the first two screens of three pages on a phone (the
    step page with a cell tapped, so its inspector shows)."""
    context = browser.new_context(**PHONE, device_scale_factor=2)
    page = context.new_page()
    for path in PHONE_PAGES:
        page.goto(f"{url}/{path}")
        page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
        wait_for_app(page)
        if path == "Step_by_step":
            x, y = cell_centre(page, "S", 3, 1)
            page.touchscreen.tap(x, y)
            page.wait_for_selector("text=Query on (row 3) and key cat (column 1)", timeout=60_000)
            page.locator(".st-key-S").evaluate("e => e.scrollIntoView({block: 'start'})")
        if path == "Predict_then_reveal":
            answer_two(page)
            page.locator("[data-testid=stMain] [data-testid=stRadio]").first.evaluate(
                "e => e.scrollIntoView({block: 'start'})"
            )
        shoot(page, f"phone_{path}.png")
    context.close()


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    paths = [page.path for page in PAGES]  # the table's order
    wanted = set(sys.argv[1:])
    if wanted:
        paths = [path for path in paths if (path or "Home") in wanted]
    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": WIDTH, "height": 1100})
        for path in paths:
            page.set_viewport_size({"width": WIDTH, "height": 1100})
            page.goto(f"{url}/{path}" + (f"?{EXERCISE}" if path == "Work_it_out" else ""))
            page.wait_for_selector("[data-testid=stMain] h1", timeout=120_000)
            wait_for_app(page)
            if path == "Work_it_out":
                work_two(page)
            if path == "Predict_then_reveal":
                answer_two(page)
            if path == "Watch_a_head_learn":  # a trained run: a learned head, then generation
                page.locator(".st-key-gpt_train button").click()
                page.wait_for_selector(".st-key-gpt_checkpoints .js-plotly-plot", timeout=300_000)
                wait_for_app(page)
            time.sleep(2)  # let Plotly finish drawing
            # Streamlit scrolls inside its main block: grow the window to the page's height.
            height = page.evaluate(
                "() => document.querySelector('[data-testid=stMain]').scrollHeight"
            )
            page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 40, MAX_HEIGHT)})
            shoot(page, f"{path or 'Home'}.png")
        if not wanted or "worksheet" in wanted:
            worksheet_png()
        if not wanted or "present" in wanted:  # every page's first screen on a projector
            page.set_viewport_size({"width": 1280, "height": 720})
            for path in [page.path for page in PAGES]:
                page.goto(f"{url}/{path}?present=on")
                page.wait_for_selector("[data-testid=stMain] h1, [data-testid=stMain] h2")
                wait_for_app(page)
                shoot(page, f"present_{path or 'Home'}.png")
        if not wanted or "phone" in wanted:  # three pages on a phone, 390 x 844, touch
            phone_pngs(browser, url)
        if not wanted or "projector" in wanted:  # what a lecturer projects, at 1280 x 720
            page.set_viewport_size({"width": 1280, "height": 720})
            page.goto(f"{url}/Step_by_step?present=on&step=6")
            wait_for_app(page, "S_scaled")
            page.locator(".st-key-S_scaled").scroll_into_view_if_needed()
            shoot(page, "projector.png")
        if not wanted or "spread" in wanted:  # one entry of X changed: what it reached
            page.set_viewport_size({"width": WIDTH, "height": 1100})
            page.goto(f"{url}/Step_by_step?edit=2,1,3.5")
            wait_for_app(page, "A")
            page.locator(".st-key-S").scroll_into_view_if_needed()
            shoot(page, "spread.png")
        if not wanted or "token_lines" in wanted:  # A as token lines, at 1280 x 720
            page.set_viewport_size({"width": 1280, "height": 720})
            page.goto(f"{url}/Step_by_step")
            wait_for_app(page, "A")
            show_view(page, "A", "Token lines")
            page.get_by_role("heading", name="7. Softmax attention matrix A").evaluate(
                "h => h.scrollIntoView({block: 'start'})"  # the step's header, then the lines
            )
            shoot(page, "token_lines.png")
        if wanted and "inspector" not in wanted:
            browser.close()
            return
        page.set_viewport_size({"width": WIDTH, "height": 1100})
        page.goto(f"{url}/Step_by_step")
        wait_for_app(page, "S")
        x, y = cell_centre(page, "S", 1, 2)
        page.mouse.click(x, y)
        page.wait_for_selector("text=Query cat (row 1) and key sat (column 2)", timeout=60_000)
        page.locator("text=Cell inspector").scroll_into_view_if_needed()
        shoot(page, "inspector.png")
        browser.close()


if __name__ == "__main__":
    main()
