"""How fast the geometry page's query turns: `python -m benchmarks.geometry_browser [--steps 12]`.

Against a `streamlit run` server on loopback and Chromium (tools/browser.py), the page at its
defaults (4 keys, 36 angles x 5 lengths of frames): the mouse is pressed on the angle slider's
rail at a new step, and the page measures, with performance.now(), the time from that press
(the event's own timeStamp) to Plotly's ``plotly_animated`` (the new frame drawn) and to the
next animation frame after it (the browser has painted the redrawn arrows). Also counted:
script reruns during the steps (there should be none). Medians and maxima of the steps.
"""

import argparse
import re
import statistics
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tools.browser import launch_chromium, streamlit_server, wait_for_run

ROOT = Path(__file__).resolve().parent.parent


CHART = ".st-key-geometry .js-plotly-plot"
# In the page: note the time of each mouse press, and when Plotly has drawn the frame it
# asked for and the browser's next frame after that; count script runs too.
INSTRUMENT = """() => {
    const gd = document.querySelector('.st-key-geometry .js-plotly-plot');
    window.geo = {press: null, drawn: [], painted: [], runs: 0};
    document.addEventListener('mousedown', e => { window.geo.press = e.timeStamp; }, true);
    gd.on('plotly_animated', () => {
        const t = performance.now();
        window.geo.drawn.push(t - window.geo.press);
        requestAnimationFrame(() => window.geo.painted.push(performance.now() - window.geo.press));
    });
    const app = document.querySelector('[data-testid=stApp]');
    new MutationObserver(() => {
        if (app.getAttribute('data-test-script-state') === 'running') window.geo.runs += 1;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""


def press_step(page, label):
    """Press the mouse on the angle slider's rail under its step ``label``."""
    group = page.locator(CHART).locator(".slider-group").first
    step = group.locator(".slider-label", has_text=re.compile(f"^{re.escape(label)}$"))
    rail = group.locator(".slider-rail-rect").bounding_box()
    box = step.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, rail["y"] + rail["height"] / 2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=12, help="slider steps measured")
    args = parser.parse_args()
    labels = [f"{a}°" for a in range(40, 360, 20)][: args.steps]  # labelled steps, 20° apart
    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/Attention_as_geometry")
        page.wait_for_selector(f"{CHART} .barlayer", timeout=120_000)
        wait_for_run(page)
        page.locator(CHART).scroll_into_view_if_needed()
        page.evaluate(INSTRUMENT)
        press_step(page, "20°")  # a first step, not counted: Plotly's first animation sets up
        page.wait_for_function("() => window.geo.painted.length === 1")
        page.evaluate("() => { window.geo.drawn = []; window.geo.painted = []; }")
        for i, label in enumerate(labels, start=1):
            press_step(page, label)
            page.wait_for_function(f"() => window.geo.painted.length === {i}")
            time.sleep(0.2)  # a pause between steps, as a hand would make
        geo = page.evaluate("() => window.geo")
        browser.close()
    drawn, painted = geo["drawn"], geo["painted"]
    print(time.strftime("%Y-%m-%d"), f"{len(painted)} angle steps, default keys")
    print(
        f"press -> frame drawn (plotly_animated): median {statistics.median(drawn):.1f} ms, "
        f"max {max(drawn):.1f} ms"
    )
    print(
        f"press -> next paint:                    median {statistics.median(painted):.1f} ms, "
        f"max {max(painted):.1f} ms"
    )
    print(f"script reruns during the steps: {geo['runs']}")


if __name__ == "__main__":
    main()
