"""What a student waits for, in a real browser: `python benchmarks/browser.py [--repeats 3]`.

Against a `streamlit run` server on loopback and Debian's Chromium, for the step-by-step page at
n = 6 (the default sentence), 64 and 512 tokens: the time from opening the page to its last
heatmap drawn, and from changing d_k to every chart updated. Medians of the repeats.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.browser import launch_chromium, streamlit_server, wait_for_app  # noqa: E402

N_CHARTS = 11  # heatmaps on the step-by-step page with the default settings

ALL_DRAWN = f"""() => document.querySelectorAll('.js-plotly-plot .heatmaplayer .hm').length >= {
    N_CHARTS
} && !document.querySelector('[data-testid=stStatusWidget]')"""


def open_page(page, url):
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(ALL_DRAWN, timeout=300_000)
    return time.perf_counter() - start


def change_d_k(page, d_k):
    """Seconds from typing a new d_k to the Q chart showing d_k columns."""
    box = page.locator(".st-key-attnviz_d_k input")
    box.fill(str(d_k))
    start = time.perf_counter()
    box.press("Enter")
    page.wait_for_function(
        """d => { const gd = document.querySelector('.st-key-Q .js-plotly-plot');
                  return gd && gd._fullLayout.xaxis.tickvals.length === d; }""",
        arg=min(d_k, 96),
        timeout=300_000,
    )
    wait_for_app(page)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(time.strftime("%Y-%m-%d"), "median of", args.repeats)
    print(f"{'n':>5}{'open -> last heatmap s':>26}{'change d_k -> updated s':>26}")
    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        for n in (6, 64, 512):
            query = "" if n == 6 else f"?n={n}"
            opens, changes = [], []
            for r in range(args.repeats):
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                opens.append(open_page(page, f"{url}/Step_by_step{query}"))
                changes.append(change_d_k(page, 5 + r))
                page.context.close()
            print(f"{n:>5}{statistics.median(opens):>26.2f}{statistics.median(changes):>26.2f}")
        browser.close()


if __name__ == "__main__":
    main()
