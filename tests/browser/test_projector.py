"""Projector mode in a browser at 1280 x 720: every page and every step of its stepper fits a
projector (chart and table text, no downloads, nothing cut, no legend over an axis title, the
chart on the first screen, the sidebar collapsed, no serious or critical accessibility problem
on its first step), and a clicker's keys drive the steps and the lecture deck across pages."""

import contextlib
import re
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.helpers import PAGES
from tools.browser import accessibility_problems, error_count, wait_for_app, wait_for_run

pytestmark = pytest.mark.browser

PAGE_PATHS = [""] + [Path(p).stem.split("_", 1)[1] for p in PAGES]
SMALLEST_PX = 18
FIRST_CHART_PX = 600  # the top of the step's first chart (or picture) on the first screen
# Measured from the rendered page: the chart texts' computed sizes (visible SVG text inside
# Plotly's charts), what is cut (a button, a label or a chart title wider than its box), a
# legend's box over an axis title's, the table cells' computed sizes, the first chart's top,
# the sidebar and the stepper's "Step k of N".
MEASURE = """SMALLEST => {
  const main = document.querySelector("[data-testid=stMain]");
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const small = [];
  for (const t of main.querySelectorAll(".js-plotly-plot svg text")) {
    if (!shown(t) || !t.textContent.trim()) continue;
    const px = parseFloat(getComputedStyle(t).fontSize);
    if (px < SMALLEST) small.push(`${px}px "${t.textContent.slice(0, 30)}"`);
  }
  const cut = [];
  for (const el of main.querySelectorAll("button *, label *, [data-testid=stWidgetLabel] *")) {
    if (shown(el) && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim())
      cut.push(el.textContent.slice(0, 40));
  }
  for (const plot of main.querySelectorAll(".js-plotly-plot")) {
    const box = plot.getBoundingClientRect();
    for (const title of plot.querySelectorAll(".gtitle, .g-gtitle text")) {
      const r = title.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1))
        cut.push(title.textContent.slice(0, 40));
    }
  }
  const meets = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const under = [];  // a legend over an axis title
  for (const plot of main.querySelectorAll(".js-plotly-plot")) {
    const legend = plot.querySelector(".legend");
    if (!legend || !shown(legend)) continue;
    for (const title of plot.querySelectorAll(".g-xtitle text, .g-ytitle text")) {
      if (shown(title) && meets(legend.getBoundingClientRect(), title.getBoundingClientRect()))
        under.push(title.textContent.slice(0, 40));
    }
  }
  const tables = [];  // table cells (st.table, Markdown tables) under the smallest size
  for (const cell of main.querySelectorAll("table td, table th")) {
    const px = parseFloat(getComputedStyle(cell).fontSize);
    if (shown(cell) && cell.textContent.trim() && px < SMALLEST)
      tables.push(`${px}px "${cell.textContent.slice(0, 20)}"`);
  }
  const charts = Array.from(main.querySelectorAll(
    ".js-plotly-plot, [data-testid=stImage] img")).filter(shown);
  const top = charts.length ? Math.min(...charts.map(c => c.getBoundingClientRect().top)) : null;
  const bar = main.querySelector(".st-key-stepper");
  const sidebar = document.querySelector("[data-testid=stSidebar]");
  return {
    small, cut, top, charts: charts.length, under, tables,
    downloads: Array.from(document.querySelectorAll("[data-testid=stDownloadButton]"))
      .filter(shown).length,
    sidebarOpen: !!sidebar && sidebar.getAttribute("aria-expanded") === "true",
    step: bar ? bar.innerText : null,
  };
}"""
STEP_OF = re.compile(r"Step (\d+) of (\d+)")


def _open(page, url):
    page.goto(url)
    page.wait_for_selector("[data-testid=stMain] h1, [data-testid=stMain] h2", timeout=120_000)
    wait_for_app(page)
    _drawn(page)


def _drawn(page):
    """Wait until every chart of the main area is drawn: Plotly draws after the run, and a chart
    not drawn yet has no size (the measure would pass over it to a later one). The charts are
    counted at two polls half a second apart: a step's chart that Streamlit has not put in the
    page yet is not among them (the measure once found only the picture below it)."""
    page.wait_for_function(
        """() => {
          const plots = [...document.querySelectorAll("[data-testid=stMain] .js-plotly-plot")];
          const same = window.__attnvizPlots === plots.length;
          window.__attnvizPlots = plots.length;
          return same && plots.every(p => p.querySelector(".main-svg"));
        }""",
        polling=500,
        timeout=60_000,
    )
    page.wait_for_timeout(300)


def _measure(page):
    """MEASURE, once the step's first chart is on the first screen or 20 s have passed: a chart
    Streamlit has not yet sent (a busy server, a heavy step such as the real model's 72 heads)
    leaves only later ones to measure. A chart that stays low fails after the wait."""
    m = page.evaluate(MEASURE, SMALLEST_PX)
    if m["top"] is not None and m["top"] > FIRST_CHART_PX:
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                "([measure, smallest, px]) => (eval(measure)(smallest).top ?? 0) <= px",
                arg=[MEASURE, SMALLEST_PX, FIRST_CHART_PX],
                polling=500,
                timeout=20_000,
            )
        _drawn(page)
        m = page.evaluate(MEASURE, SMALLEST_PX)
    return m


def _problems(where, m):
    found = []
    if m["small"]:
        found.append(f"{where}: chart text under {SMALLEST_PX} px: {m['small'][:3]}")
    if m["cut"]:
        found.append(f"{where}: cut: {m['cut'][:3]}")
    if m["under"]:
        found.append(f"{where}: a legend over the axis title {m['under'][:3]}")
    if m["tables"]:
        found.append(f"{where}: table text under {SMALLEST_PX} px: {m['tables'][:3]}")
    if m["downloads"]:
        found.append(f"{where}: {m['downloads']} download buttons")
    if m["sidebarOpen"]:
        found.append(f"{where}: the sidebar is open")
    if m["top"] is not None and m["top"] > FIRST_CHART_PX:
        found.append(f"{where}: the first chart starts at {m['top']:.0f} px")
    return found


def test_every_page_and_step_fits_a_projector(browser, server, artifacts):
    """Every page with present=on, and every step of the pages with a stepper (Next, then the
    bar says "Step k+1 of N"), measured from the rendered page."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    problems, steps_seen = [], {}
    try:
        for path in PAGE_PATHS:
            _open(page, f"{server}/{path}?present=on")
            assert error_count(page) == 0, path
            m = _measure(page)
            problems += _problems(f"{path or 'Home'} step 1", m)
            problems += [f"{path or 'Home'}: {p}" for p in accessibility_problems(page)]
            found = STEP_OF.search(m["step"] or "")
            if not found:
                continue
            k, n = int(found[1]), int(found[2])
            steps_seen[path] = n
            while k < n:
                page.locator(".st-key-step_next button").click()
                page.wait_for_function(
                    "k => document.querySelector('.st-key-stepper')?.innerText"
                    ".includes(`Step ${k} of`)",
                    arg=k + 1,
                    timeout=60_000,
                )
                wait_for_run(page)
                _drawn(page)
                k += 1
                problems += _problems(f"{path or 'Home'} step {k}", _measure(page))
        page.screenshot(path=str(artifacts / "projector-last.png"))
    finally:
        context.close()
    assert steps_seen.get("Step_by_step") == 11  # steps 0 to 10
    assert not problems, "\n".join(problems)


def _bar(page):
    return page.locator(".st-key-stepper").inner_text()


def test_the_clickers_keys_move_the_steps_and_follow_the_deck_across_pages(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        # The lecture deck's slide 10: Step by step, step 7; slide 11 is step 8, then the edit
        _open(page, f"{server}/Step_by_step?present=on&deck=lecture&slide=10&step=7")
        assert "Step 8 of 11" in _bar(page) and "slide 10 of" in _bar(page)
        page.wait_for_function("() => window.__attnvizKeys === true")  # the keys' script ran
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "() => document.querySelector('.st-key-stepper')?.innerText.includes('Step 9 of')",
            timeout=60_000,
        )
        wait_for_run(page)
        assert "step=8" in page.url and "slide=11" in page.url
        page.keyboard.press("PageDown")  # past the page's own steps: the next slide's link
        page.wait_for_url(re.compile(r"slide=12"), timeout=60_000)
        _open(page, page.url)  # the slide opened as its own link: Step 1 with edit=1,0,5
        assert "edit=1%2C0%2C5" in page.url and "Step 2 of 11" in _bar(page)
        page.wait_for_function("() => window.__attnvizKeys === true")
        page.keyboard.press("ArrowLeft")  # back to the slide before: step 8, no edit
        page.wait_for_url(re.compile(r"slide=11"), timeout=60_000)
        wait_for_app(page)
        page.wait_for_function(
            "() => document.querySelector('.st-key-stepper')?.innerText.includes('Step 9 of')",
            timeout=60_000,
        )
        assert "edit" not in page.url
        assert error_count(page) == 0
    finally:
        context.close()
