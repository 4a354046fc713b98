"""What a student waits for, in a real browser, against a bare floor:
`python -m benchmarks.browser [--against PATH] [--n 6] [--rounds 5]`.

Headless Chromium against real `streamlit run` servers on loopback. For the step-by-step page
at n tokens (default 6, the default sentence), three moments, each from the user's action to
what it shows, in wall-clock time:

  * open     page.goto -> every heatmap of the page drawn and the run over;
  * update   d_k typed in the sidebar + Enter -> Q drawn with the new d_k columns, run over
             (a full rerun: every chart has new numbers);
  * click    a click on cell (1, 2) of S -> the cell inspector names that cell, run over
             (a part of the page changes).

The floor is a bare Streamlit page (its own server, an ``app.py`` in a temporary folder) that
draws the very figures the step page draws (their Plotly specs, taken with AppTest for each
d_k the run types), under the same chart keys, with the same d_k box in the sidebar and, for a
click on S, one line of text naming the cell: nothing else. Its times are what any Streamlit
page showing these charts costs here; a page at 1.0x its floor spends nothing on the rest.

``--against PATH [PATH ...]`` adds other checkouts (e.g. a worktree of an older commit) served
side by side. Every round visits each server in turn, in a rotating order, each visit in a fresh
browser context; the table gives medians, and each page's median divided by the floor's (the
ratio is what to compare: the machine is shared and absolute times drift).

    git worktree add --detach /tmp/attnviz-before HEAD~3
    python -m benchmarks.browser --against /tmp/attnviz-before --rounds 5

A script, never a test: its numbers depend on the machine.
"""

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tools.browser import cell_centre, launch_chromium, streamlit_server

ROOT = Path(__file__).resolve().parent.parent


D_K = 4  # the default; each round types D_K + 1 + its number, so every update is a change
CLICKED = (1, 2)  # the cell of S clicked: query row 1, key column 2
INSPECTED = "text=/Query .* \\(row 1\\) and key .* \\(column 2\\)/"

FLOOR = """
import json

import plotly.io
import streamlit as st

st.set_page_config(layout="wide")
SPECS = json.loads(open({specs!r}).read())  # {{d_k: [[chart key, spec, selectable], ...]}}
LABELS = {labels!r}
d_k = st.sidebar.number_input("d_k", 1, 512, {d_k}, key="attnviz_d_k")
for key, spec, selectable in SPECS[str(d_k)]:
    figure = plotly.io.from_json(spec)
    if selectable:
        event = st.plotly_chart(figure, key=key, on_select="rerun", selection_mode="points")
        points = event.selection.get("points") if key == "S" else None
        if points:
            i, j = round(points[0]["y"]), round(points[0]["x"])
            st.markdown(f"Query {{LABELS[i]}} (row {{i}}) and key {{LABELS[j]}} (column {{j}})")
    else:
        st.plotly_chart(figure, key=key)
"""


def page_charts(n, d_k):
    """[[chart key, Plotly spec, selectable]] the step page draws (AppTest, same code path)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app_pages" / "Step_by_step.py"), default_timeout=600)
    at.query_params.update({"d_k": str(d_k)} | ({} if n == 6 else {"n": str(n)}))
    at.run()
    return [
        [el.proto.id.rsplit("-", 1)[-1], el.proto.spec, bool(el.proto.selection_mode)]
        for el in at.get("plotly_chart")
    ]


def run_over(page):
    page.wait_for_selector("[data-test-script-state=notRunning]", timeout=300_000)


def all_drawn(page, count):
    page.wait_for_function(
        "c => document.querySelectorAll('.js-plotly-plot .heatmaplayer .hm').length >= c",
        arg=count,
        timeout=300_000,
    )
    run_over(page)


def visit(browser, url, query, n_charts, d_k):
    """(open s, update s, click s) of one fresh visit."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    start = time.perf_counter()
    page.goto(f"{url}{query}")
    all_drawn(page, n_charts)
    opened = time.perf_counter() - start

    box = page.locator(".st-key-attnviz_d_k input")
    box.fill(str(d_k))
    start = time.perf_counter()
    box.press("Enter")
    page.wait_for_function(
        """d => { const gd = document.querySelector('.st-key-Q .js-plotly-plot');
                  return gd && gd._fullLayout && gd._fullLayout.xaxis.tickvals.length === d; }""",
        arg=min(d_k, 96),
        timeout=300_000,
    )
    run_over(page)
    updated = time.perf_counter() - start

    x, y = cell_centre(page, "S", *CLICKED)
    time.sleep(0.3)  # the scroll settles
    start = time.perf_counter()
    page.mouse.click(x, y)
    page.wait_for_selector(INSPECTED, timeout=300_000)
    run_over(page)
    clicked = time.perf_counter() - start
    page.context.close()
    return opened, updated, clicked


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--against", metavar="PATH", nargs="+", default=[], help="other checkouts, side by side"
    )
    parser.add_argument("--n", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import attnviz

    labels = attnviz.compute(attnviz.Settings(n=args.n, generated=args.n != 6)).labels
    d_ks = [D_K] + [D_K + 1 + r for r in range(args.rounds + 1)]
    charts = {str(d_k): page_charts(args.n, d_k) for d_k in d_ks}
    n_charts = len(charts[str(D_K)])
    query = "" if args.n == 6 else f"?n={args.n}"
    with tempfile.TemporaryDirectory() as floor_root, sync_playwright() as p:
        specs = Path(floor_root) / "specs.json"
        specs.write_text(json.dumps(charts))
        (Path(floor_root) / "app.py").write_text(
            FLOOR.format(specs=str(specs), labels=list(labels), d_k=D_K)
        )
        servers = {"floor": (Path(floor_root), "")}
        servers["this checkout"] = (ROOT, "/Step_by_step")
        for other in args.against:
            servers[Path(other).name] = (Path(other), "/Step_by_step")
        browser = launch_chromium(p)
        times = {name: [] for name in servers}
        with contextlib.ExitStack() as stack:
            urls = {
                name: stack.enter_context(streamlit_server(root=root)) + path
                for name, (root, path) in servers.items()
            }
            for url in urls.values():  # warm every server's caches and Plotly's chunk
                visit(browser, url, query, n_charts, D_K + 1)
            names = list(urls)
            for r in range(args.rounds):
                order = names[r % len(names) :] + names[: r % len(names)]
                for name in order:
                    times[name].append(visit(browser, urls[name], query, n_charts, d_ks[r + 2]))
                last = {name: [round(t, 2) for t in rows[-1]] for name, rows in times.items()}
                print(f"round {r + 1}:", last, flush=True)
        browser.close()
    print(f"\n{time.strftime('%Y-%m-%d')}, step page at n = {args.n}, medians of {args.rounds}")
    floor = [statistics.median(t[k] for t in times["floor"]) for k in range(3)]
    print(f"{'':<16}{'open s':>9}{'x floor':>9}{'update s':>10}{'x floor':>9}{'click s':>9}"
          f"{'x floor':>9}")  # fmt: skip
    for name, rows in times.items():
        med = [statistics.median(t[k] for t in rows) for k in range(3)]
        cells = zip(med, floor, (9, 10, 9), strict=True)
        print(f"{name:<16}" + "".join(f"{m:>{w}.2f}{m / f:>9.2f}" for m, f, w in cells))


if __name__ == "__main__":
    main()
