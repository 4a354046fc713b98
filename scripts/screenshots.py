"""Screenshots of every page for the README: `python scripts/screenshots.py` (needs chromium).

Starts `streamlit run app.py` on a free loopback port, opens each page in headless Chromium and
writes docs/screenshots/<page>.png (the top of the page), plus the cell inspector after a click.
"""

import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    cell_centre,
    streamlit_server,
    wait_for_app,
)

OUT = ROOT / "docs" / "screenshots"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    paths = ["", *(p.stem.split("_", 1)[1] for p in sorted((ROOT / "pages").glob("*.py")))]
    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        for path in paths:
            page.goto(f"{url}/{path}")
            wait_for_app(page)
            page.wait_for_selector(".js-plotly-plot", timeout=120_000)
            time.sleep(2)
            page.screenshot(path=OUT / f"{path or 'Home'}.png")
            print("wrote", OUT / f"{path or 'Home'}.png")
        page.goto(f"{url}/Step_by_step")
        wait_for_app(page, "S")
        x, y = cell_centre(page, "S", 1, 2)
        page.mouse.click(x, y)
        page.wait_for_selector("text=Query cat (row 1) and key sat (column 2)", timeout=60_000)
        page.locator("text=Cell inspector").scroll_into_view_if_needed()
        time.sleep(2)
        page.screenshot(path=OUT / "inspector.png")
        print("wrote", OUT / "inspector.png")
        browser.close()


if __name__ == "__main__":
    main()
