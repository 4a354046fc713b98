"""Take the lesson pages' screenshots for the README: python scripts/lesson_screenshots.py

Starts `streamlit run app.py` on a free port, opens each lesson in Debian's Chromium (as the
browser tests do) and writes docs/screenshots/<Page>.png. On the quiz page it answers the first
two questions (one wrongly, one rightly), so the picture shows both reveals.
"""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attnviz import Settings, compute, lessons  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_for_app  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SHOTS = [  # (URL path and query, file name, Plotly charts the page draws)
    ("Why_scale", "Why_scale.png", 6),
    ("Masks_and_temperature?mask=causal&temperature=0.5", "Masks_and_temperature.png", 8),
    ("Positions", "Positions.png", 5),
    ("Predict_then_reveal", "Predict_then_reveal.png", 0),
]
WIDTH = 1400


def answer_two(page):
    """Answer the first question wrongly and the second rightly, so both reveals show."""
    questions = lessons.quiz(compute(Settings()), 0)
    wrong = next(o for o in questions[0].options if o != questions[0].answer)
    for k, choice in enumerate([wrong, questions[1].answer]):
        group = page.locator("[data-testid=stMain] [data-testid=stRadio]").nth(k)
        group.locator("[role=radiogroup] label").filter(has_text=choice).first.click()
        page.wait_for_selector(f":nth-match(:text('Why:'), {k + 1})", timeout=60_000)
        wait_for_app(page)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, streamlit_server() as url:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
        for path, name, charts in SHOTS:
            page.set_viewport_size({"width": WIDTH, "height": 1000})
            page.goto(f"{url}/{path}")
            page.wait_for_selector("[data-testid=stMain] h1", timeout=90_000)
            page.wait_for_function(
                f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= "
                f"{2 * charts}",  # each Plotly chart draws two svg layers
                timeout=90_000,
            )
            wait_for_app(page)
            if name.startswith("Predict"):
                answer_two(page)
            page.wait_for_timeout(1500)  # let Plotly finish drawing
            # Streamlit scrolls inside its main block: grow the window to the page's height.
            height = page.evaluate(
                "() => document.querySelector('[data-testid=stMain]').scrollHeight"
            )
            page.set_viewport_size({"width": WIDTH, "height": int(height) + 40})
            page.wait_for_timeout(1500)
            page.screenshot(path=OUT / name)
            print("wrote", OUT / name)
        browser.close()


if __name__ == "__main__":
    main()
