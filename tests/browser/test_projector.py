"""Projector mode in a browser at 1280 x 720: every page and every step of its stepper fits a
projector (chart and table text, no downloads, nothing cut, no legend over an axis title, the
chart on the first screen, the sidebar collapsed, no serious or critical accessibility problem
on its first step), and a clicker's keys drive the steps and the lecture deck across pages."""

import contextlib
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.helpers import PAGE_PATHS
from tools.browser import accessibility_problems, error_count, wait_for_app, wait_for_run

pytestmark = pytest.mark.browser

SMALLEST_PX = 18
SCREEN = (1280, 720)  # the projector: the step's first chart lies wholly inside it
# Measured from the rendered page (the lecturer's measure, teaching review 4 section 2):
# - small: visible text under SMALLEST px, DOM text (KaTeX at its base size: a formula that
#   shrinks to fit its column counts at the size it is drawn) and the charts' SVG text;
# - canvas: grids drawn on a canvas (st.dataframe), whose cells are 13-14 px whatever the CSS;
# - cut: a button, a label or a chart title, legend or axis title wider than its box;
# - overlap: two of a chart's texts drawn over each other (smeared ticks, a table's rows, an
#   axis title under the legend);
# - first: the step's first chart (or picture), top and bottom.
MEASURE = r"""SMALLEST => {
  const main = document.querySelector("[data-testid=stMain]");
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 1 && r.height > 1; };
  const small = [];
  for (const t of main.querySelectorAll(".js-plotly-plot svg text")) {
    if (!shown(t) || !t.textContent.trim()) continue;
    const px = parseFloat(getComputedStyle(t).fontSize);
    if (px < SMALLEST) small.push(`${px}px "${t.textContent.slice(0, 30)}"`);
  }
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || !el ||
        el.closest("svg, .katex, [data-testid=stSidebar], [data-testid=stIconMaterial]"))
      continue;
    if (!shown(el) || getComputedStyle(el).visibility === "hidden") continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < SMALLEST) small.push(`${px}px "${node.textContent.trim().slice(0, 30)}"`);
  }
  for (const k of main.querySelectorAll(".katex")) {
    if (!shown(k)) continue;
    const px = parseFloat(getComputedStyle(k).fontSize);
    if (px < SMALLEST) small.push(`${px.toFixed(1)}px formula "${k.textContent.slice(0, 30)}"`);
  }
  // a table drawn on a canvas (st.dataframe); an editable grid (st.data_editor, a widget
  // with a key: Geometry's keys, the deck's slides) is an input, like a text box
  const canvas = Array.from(main.querySelectorAll("[data-testid=stDataFrame]")).filter(
    g => shown(g) && !g.closest("[class*=st-key-]")).length;
  const cut = [];
  for (const el of main.querySelectorAll("button *, label *, [data-testid=stWidgetLabel] *")) {
    if (shown(el) && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim())
      cut.push(el.textContent.slice(0, 40));
  }
  const overlap = [];
  const meets = (a, b, by) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > by &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > by;
  for (const plot of main.querySelectorAll(".js-plotly-plot")) {
    const svg = plot.querySelector(".main-svg");
    if (!svg || !shown(svg)) continue;
    const box = svg.getBoundingClientRect();
    for (const el of plot.querySelectorAll(".gtitle, .g-gtitle text, .legend, .g-xtitle text, " +
                                           ".g-ytitle text")) {
      const r = el.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
                      r.bottom > box.bottom + 1))
        cut.push(`${el.textContent.slice(0, 40)} (cut at the chart's edge)`);
    }
    // a turned text's box is not its outline: two turned tick labels' boxes meet, their
    // letters do not; those are left out of text over text
    const turned = t => /rotate\((?!0[,)])/.test(t.getAttribute("transform") || "");
    const texts = Array.from(plot.querySelectorAll("svg text")).filter(
      t => shown(t) && t.textContent.trim() && !turned(t));
    const boxes = texts.map(t => t.getBoundingClientRect());
    const legend = plot.querySelector(".legend");
    if (legend && shown(legend)) {
      const r = legend.getBoundingClientRect();
      for (const t of plot.querySelectorAll(".g-xtitle text, .g-ytitle text"))
        if (shown(t) && meets(r, t.getBoundingClientRect(), 1))
          overlap.push(`the legend over "${t.textContent.slice(0, 30)}"`);
    }
    for (let i = 0; i < boxes.length && overlap.length < 5; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        if (texts[i].closest(".legend") !== texts[j].closest(".legend")) continue;
        if (texts[i].contains(texts[j]) || texts[j].contains(texts[i])) continue;
        if (meets(boxes[i], boxes[j], 2)) {
          overlap.push(`"${texts[i].textContent.slice(0, 20)}" on ` +
                       `"${texts[j].textContent.slice(0, 20)}"`);
          break;
        }
      }
  }
  // the step's charts: not those a projector shows after them (a later step's controls)
  const charts = Array.from(main.querySelectorAll(
    ".js-plotly-plot, [data-testid=stImage] img")).filter(
      c => shown(c) && !c.closest("[class*=st-key-step_meaning]"));
  let first = null;
  for (const c of charts) {
    const r = c.getBoundingClientRect();
    if (!first || r.top < first.top) first = {top: r.top, bottom: r.bottom};
  }
  const bar = main.querySelector(".st-key-stepper");
  const sidebar = document.querySelector("[data-testid=stSidebar]");
  return {
    small, canvas, cut, overlap, first, charts: charts.length,
    downloads: Array.from(document.querySelectorAll("[data-testid=stDownloadButton]"))
      .filter(shown).length,
    sidebarOpen: !!sidebar && sidebar.getAttribute("aria-expanded") === "true",
    step: bar ? bar.innerText : null,
    scrolled: window.scrollY,
  };
}"""
STEP_OF = re.compile(r"Step (\d+) of (\d+)")


def _open(page, url):
    page.goto(url)
    page.wait_for_selector("[data-testid=stMain] h1, [data-testid=stMain] h2", timeout=120_000)
    wait_for_app(page)
    page.wait_for_function(  # the projector's CSS has reached the page: its larger text
        """() => { const p = document.querySelector("[data-testid=stMain] p");
                   return p && parseFloat(getComputedStyle(p).fontSize) >= 20; }""",
        timeout=60_000,
    )
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
    """MEASURE, once the step's first chart is wholly on the first screen or 20 s have passed:
    a chart Streamlit has not yet sent (a busy server, a heavy step) leaves only later ones to
    measure. A chart that stays low fails after the wait."""
    m = page.evaluate(MEASURE, SMALLEST_PX)
    if m["first"] is not None and m["first"]["bottom"] > SCREEN[1]:
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                "([measure, smallest, px]) => (eval(measure)(smallest).first?.bottom ?? 0) <= px",
                arg=[MEASURE, SMALLEST_PX, SCREEN[1]],
                polling=500,
                timeout=20_000,
            )
        _drawn(page)
        m = page.evaluate(MEASURE, SMALLEST_PX)
    return m


def _problems(where, m):
    found = []
    if m["small"]:
        found.append(f"{where}: text under {SMALLEST_PX} px: {m['small'][:3]}")
    if m["canvas"]:
        found.append(f"{where}: {m['canvas']} canvas tables (their text is 13-14 px)")
    if m["cut"]:
        found.append(f"{where}: cut: {m['cut'][:3]}")
    if m["overlap"]:
        found.append(f"{where}: text over text: {m['overlap'][:3]}")
    if m["downloads"]:
        found.append(f"{where}: {m['downloads']} download buttons")
    if m["sidebarOpen"]:
        found.append(f"{where}: the sidebar is open")
    first = m["first"]
    if first is not None and (first["top"] < 0 or first["bottom"] > SCREEN[1]):
        seen = max(0.0, min(first["bottom"], SCREEN[1]) - max(first["top"], 0))
        share = seen / (first["bottom"] - first["top"])
        found.append(
            f"{where}: the first chart spans {first['top']:.0f} to {first['bottom']:.0f} px "
            f"({share:.0%} of it on the first screen)"
        )
    return found


def _next_step(page, k):
    page.locator(".st-key-step_next button").click()
    page.wait_for_function(
        "k => document.querySelector('.st-key-stepper')?.innerText.includes(`Step ${k} of`)",
        arg=k,
        timeout=60_000,
    )
    wait_for_run(page)
    _drawn(page)


@pytest.mark.parametrize("path", PAGE_PATHS, ids=[p or "Home" for p in PAGE_PATHS])
def test_every_step_fits_a_projector(browser, server, artifacts, path):
    """The page with present=on at 1280 x 720, and every step of its stepper (Next, then the bar
    says "Step k+1 of N"), measured from the rendered page: the first chart wholly on the first
    screen, no text under 18 px, no canvas table, nothing cut, no text over text."""
    context = browser.new_context(viewport={"width": SCREEN[0], "height": SCREEN[1]})
    page = context.new_page()
    name = path or "Home"
    problems = []
    try:
        _open(page, f"{server}/{path}?present=on")
        assert error_count(page) == 0, path
        m = _measure(page)
        problems += _problems(f"{name} step 1", m)
        problems += [f"{name}: {p}" for p in accessibility_problems(page)]
        found = STEP_OF.search(m["step"] or "")
        k, n = (int(found[1]), int(found[2])) if found else (1, 1)
        while k < n:
            k += 1
            _next_step(page, k)
            problems += _problems(f"{name} step {k}", _measure(page))
            assert error_count(page) == 0, f"{path} step {k}"
        page.screenshot(path=str(artifacts / f"projector-{name}-last.png"))
    finally:
        context.close()
    if path == "Step_by_step":
        assert n == 11  # steps 0 to 10
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
