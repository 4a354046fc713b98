"""Where the browser's time goes on the step-by-step page: `python -m benchmarks.browser_profile`.

Opens the page in Debian's Chromium against a real `streamlit run` with V8's sampling profiler
on, and splits the main thread's time (ms, median of the repeats) into:

  * plotly eval   evaluating Streamlit's Plotly chunk (about 4.7 MB, loaded on the first chart);
  * plotly draw   every Plotly.newPlot / Plotly.react of the charts (``draws`` counts their
                  ``plotly_afterplot`` events: Streamlit draws each chart twice on mount);
  * other js      Streamlit's React app: markdown, KaTeX, tables, widgets, styles;
  * (program)     the browser's own work outside JS (style, layout, paint), and GC.

``--floor`` also profiles a bare page drawing the very same figures and nothing else.
Sample times are wall-clock: on a busy machine, compare runs made side by side.

    python -m benchmarks.browser_profile [--n 6] [--repeats 3] [--floor]
"""

import argparse
import collections
import json
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tools.browser import launch_chromium, streamlit_server

ROOT = Path(__file__).resolve().parent.parent


N_CHARTS = 11
ALL_DRAWN = (
    f"""() => document.querySelectorAll('.js-plotly-plot .heatmaplayer .hm').length >= {N_CHARTS}"""
)
# Counts every Plotly draw: charts are hooked as they appear.
PROBE = """
(() => {
  const P = window.__draws = [], hooked = new WeakSet();
  new MutationObserver(() => document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    if (hooked.has(gd) || !gd.on) return;
    hooked.add(gd);
    gd.on('plotly_afterplot', () => P.push(performance.now()));
  })).observe(document, {subtree: true, childList: true, attributes: true});
})();
"""
FLOOR = """
import json
import plotly.io
import streamlit as st

for k, spec in enumerate(json.loads(open({specs!r}).read())):
    st.plotly_chart(plotly.io.from_json(spec), key=f"floor{{k}}")
"""
COLUMNS = ["wall", "plotly eval", "plotly draw", "other js", "(program)", "(gc)", "draws"]


def categories(profile):
    """{category: ms} of a V8 CPU profile (see the module docstring)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    memo = {}

    def category(node_id):
        if node_id not in memo:
            frames, x = [], node_id
            while x is not None:
                f = nodes[x]["callFrame"]
                where = (f["lineNumber"], f["columnNumber"])
                frames.append((f["functionName"], f["url"].rsplit("/", 1)[-1], where))
                x = parent.get(x)
            leaf = frames[0][0]
            plotly = [where for _, url, where in frames if url.startswith("PlotlyChart")]
            if leaf in ("(idle)", "(program)"):
                memo[node_id] = leaf
            elif leaf == "(garbage collector)":
                memo[node_id] = "(gc)"
            elif plotly:
                # the chunk's module body starts at its very first character
                memo[node_id] = "plotly eval" if (0, 0) in plotly else "plotly draw"
            else:
                memo[node_id] = "other js"
        return memo[node_id]

    out = collections.Counter()
    for sample, dt in zip(profile["samples"], profile["timeDeltas"], strict=True):
        out[category(sample)] += dt / 1000
    return out


def profile_open(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(PROBE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
    cdp.send("Profiler.start")
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function(ALL_DRAWN, timeout=300_000)
    wall = time.perf_counter() - start
    time.sleep(1.5)  # the second draw of each chart comes after the first heatmap shows
    result = categories(cdp.send("Profiler.stop")["profile"])
    result["wall"] = wall * 1000
    result["draws"] = page.evaluate("() => window.__draws.length")
    context.close()
    return result


def page_specs(n):
    """The Plotly specs the step-by-step page sends at n tokens (AppTest, same code path)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app_pages" / "Step_by_step.py"), default_timeout=300)
    if n != 6:
        at.query_params["n"] = str(n)
    at.run()
    return [el.proto.spec for el in at.get("plotly_chart")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--floor", action="store_true", help="also profile the bare floor page")
    args = parser.parse_args()
    if args.floor:  # a page is a row of the table now: a dropped-in file is served no more
        parser.error("--floor served its page from pages/, which app.py's st.navigation ignores")
    query = "" if args.n == 6 else f"?n={args.n}"
    targets = {"Step by step": f"/Step_by_step{query}"}
    floor_file = None
    if args.floor:
        specs = Path(tempfile.mkstemp(suffix=".json")[1])
        specs.write_text(json.dumps(page_specs(args.n)))
        floor_file = ROOT / "pages" / "99_Floor_profile.py"
        floor_file.write_text(FLOOR.format(specs=str(specs)))
        targets["bare floor"] = "/Floor_profile"
    rows = collections.defaultdict(list)
    try:
        with streamlit_server() as url, sync_playwright() as p:
            browser = launch_chromium(p)
            for path in targets.values():  # warm the server's caches
                profile_open(browser, url + path)
            for _ in range(args.repeats):  # alternate: the machine's load drifts
                for name, path in targets.items():
                    rows[name].append(profile_open(browser, url + path))
            browser.close()
    finally:
        if floor_file:
            floor_file.unlink()
    print(f"{time.strftime('%Y-%m-%d')}, n = {args.n}, median of {args.repeats}, ms")
    print(f"{'page':<14}" + "".join(f"{c:>13}" for c in COLUMNS))
    for name, results in rows.items():
        medians = [statistics.median(r[c] for r in results) for c in COLUMNS]
        print(f"{name:<14}" + "".join(f"{m:>13.0f}" for m in medians))


if __name__ == "__main__":
    main()
