"""Projector mode in a browser at 1280 x 720: every page and every step of its stepper fits a
projector (chart and table text, no downloads, nothing cut or smeared, no legend over an axis
title, the step's main chart and the second charts that are its point (``NAMED``) whole on the
first screen, Watch a head learn trained first, the sidebar collapsed, no serious or critical
accessibility problem on its first step), and a clicker's keys drive the steps and the lecture
deck across pages. Every wait is on a condition (the run's end, the charts drawn and settled),
never a fixed sleep."""

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
MEASURE = r"""([SMALLEST, NAMED]) => {
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
    // a legend's entry clipped by the legend's own box ("your sentence, unscalec": review 5)
    const bg = plot.querySelector(".legend .bg");
    if (bg && shown(bg)) {
      const edge = bg.getBoundingClientRect();
      for (const t of plot.querySelectorAll(".legend .legendtext"))
        if (shown(t) && t.getBoundingClientRect().right > edge.right + 1)
          cut.push(`${t.textContent.slice(0, 40)} (cut at its legend's edge)`);
    }
    // a turned text's box is not its outline: two turned tick labels' boxes meet, their
    // letters do not; those are left out of text over text
    const turned = t => /rotate\((?!0[,)])/.test(t.getAttribute("transform") || "");
    const texts = Array.from(plot.querySelectorAll("svg text")).filter(
      t => shown(t) && t.textContent.trim() && !turned(t));
    // turned tick labels of one axis smear when their neighbours are closer than about one
    // and a half font sizes along it (the chat page's 64-column axes: review 5)
    for (const layer of plot.querySelectorAll(".xaxislayer-above")) {
      const ticks = Array.from(layer.querySelectorAll("text")).filter(
        t => shown(t) && t.textContent.trim() && turned(t));
      const xs = ticks.map(t => t.getBoundingClientRect())
        .map(r => (r.left + r.right) / 2).sort((a, b) => a - b);
      const px = ticks.length ? parseFloat(getComputedStyle(ticks[0]).fontSize) : 0;
      for (let i = 1; i < xs.length; i++)
        if (xs[i] - xs[i - 1] < 1.2 * px) {
          overlap.push(`turned ticks ${(xs[i] - xs[i - 1]).toFixed(0)} px apart at ${px} px`);
          break;
        }
    }
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
    ".js-plotly-plot, [data-testid=stImage] img, [data-testid=stTable], " +
    "[data-testid=stDataFrame]")).filter(
      c => shown(c) && !c.closest("[class*=st-key-step_meaning]") &&
        !(c.matches("[data-testid=stDataFrame]") && c.closest("[class*=st-key-]")));  // an editor
  let first = null;  // the step's main chart: its topmost at least 100 px tall (review 5)
  for (const c of charts) {
    const r = c.getBoundingClientRect();
    if (r.height >= 100 && (!first || r.top < first.top)) first = {top: r.top, bottom: r.bottom};
  }
  // the parts a step names as its point (a second chart, the givens): by their key
  const named = {};
  for (const key of NAMED) {
    const el = main.querySelector(`.st-key-${key}`);
    const r = el && el.getBoundingClientRect();
    named[key] = r && r.height > 1 ? {top: r.top, bottom: r.bottom} : null;
  }
  const bar = main.querySelector(".st-key-stepper");
  const sidebar = document.querySelector("[data-testid=stSidebar]");
  return {
    small, canvas, cut, overlap, first, named, charts: charts.length,
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
    """Wait until every chart of the main area is drawn and laid out: Plotly draws after the
    run, and a chart not drawn yet has no size (the measure would pass over it to a later one).
    The charts' count and places are compared at two polls half a second apart: a step's chart
    that Streamlit has not put in the page yet, or one still moving as the page grows, is not
    settled (the measure once found only the picture below it)."""
    page.wait_for_function(
        """() => {
          const plots = [...document.querySelectorAll("[data-testid=stMain] .js-plotly-plot")];
          const places = plots.map(p => { const r = p.getBoundingClientRect();
                                          return `${r.top.toFixed(0)}:${r.height.toFixed(0)}`; })
            .join(",") + `|${document.querySelector("[data-testid=stMain]").scrollHeight}`;
          const same = window.__attnvizPlaces === places;
          window.__attnvizPlaces = places;
          return same && plots.every(p => p.querySelector(".main-svg") && p._fullLayout);
        }""",
        polling=500,
        timeout=60_000,
    )


def _measure(page, named=()):
    """MEASURE, once the step's main chart is wholly on the first screen or 20 s have passed:
    a chart Streamlit has not yet sent (a busy server, a heavy step) leaves only later ones to
    measure. A chart that stays low fails after the wait."""
    m = page.evaluate(MEASURE, [SMALLEST_PX, list(named)])
    if m["first"] is not None and m["first"]["bottom"] > SCREEN[1]:
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                "([measure, smallest, px]) => (eval(measure)([smallest, []]).first?.bottom ?? 0) "
                "<= px",
                arg=[MEASURE, SMALLEST_PX, SCREEN[1]],
                polling=500,
                timeout=20_000,
            )
        _drawn(page)
        m = page.evaluate(MEASURE, [SMALLEST_PX, list(named)])
    return m


def _share(box):
    seen = max(0.0, min(box["bottom"], SCREEN[1]) - max(box["top"], 0))
    return seen / max(box["bottom"] - box["top"], 1)


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
        found.append(
            f"{where}: the main chart spans {first['top']:.0f} to {first['bottom']:.0f} px "
            f"({_share(first):.0%} of it on the first screen)"
        )
    for key, box in m["named"].items():
        if box is None:
            found.append(f"{where}: {key} is not drawn")
        elif box["top"] < 0 or box["bottom"] > SCREEN[1]:
            found.append(
                f"{where}: {key} spans {box['top']:.0f} to {box['bottom']:.0f} px "
                f"({_share(box):.0%} of it on the first screen)"
            )
    return found


def _reveal(page):
    """On a Predict question not revealed yet, Next is "Reveal": press it, wait for
    the revealed screen; True if it was there."""
    button = page.locator(".st-key-step_next button")
    if not button.count() or not button.inner_text().startswith("Reveal"):
        return False
    button.click()
    page.wait_for_function(
        "() => document.querySelector('.st-key-step_next')?.innerText.includes('Next')",
        timeout=60_000,
    )
    wait_for_run(page)
    _drawn(page)
    return True


def _next_step(page, k):
    page.locator(".st-key-step_next button").click()
    page.wait_for_function(
        "k => document.querySelector('.st-key-stepper')?.innerText.includes(`Step ${k} of`)",
        arg=k,
        timeout=60_000,
    )
    wait_for_run(page)
    _drawn(page)


# The step's point beside its main chart, whole on the first screen too (teaching review 5, §1):
# (page, the bar's step k) -> the keys of the charts (or parts) that must be whole
NAMED = {
    ("Your_own_numbers", 4): ("S_scaled", "A"),
    ("Masks_and_temperature", 1): ("masked_A",),
    ("Multi_head", 4): ("mh_head_S", "mh_head_A"),
    ("Watch_a_head_learn", 3): ("gpt_checkpoints",),  # step 2, with its checkpoint slider
    ("Work_it_out", 1): ("ex_givens",),
}
# Pages opened with settings of their own: Watch trains the default deck's task first
OPENED = {"Watch_a_head_learn": "gpt_task=induction&"}


def _train(page):
    """Watch a head learn, step 0: Train, then wait until the button says it is trained."""
    page.locator(".st-key-gpt_train button").click()
    page.wait_for_function(
        """() => document.querySelector(".st-key-gpt_train button")?.innerText
                   .includes("Trained")""",
        timeout=180_000,
    )
    wait_for_run(page)
    _drawn(page)


@pytest.fixture(scope="module")
def projector(browser):
    """One browser at 1280 x 720 for this file: its pages (a Streamlit session each) share the
    HTTP and code caches, so Streamlit's and Plotly's scripts are parsed once, not per page."""
    context = browser.new_context(viewport={"width": SCREEN[0], "height": SCREEN[1]})
    yield context
    context.close()


@pytest.mark.parametrize("path", PAGE_PATHS, ids=[p or "Home" for p in PAGE_PATHS])
def test_every_step_fits_a_projector(projector, server, artifacts, path):
    """The page with present=on at 1280 x 720, and every step of its stepper (Next, then the bar
    says "Step k+1 of N"), measured from the rendered page: the main chart (and the step's
    named point) wholly on the first screen, no text under 18 px, no canvas table, nothing cut,
    no text over text. Each step's first screen is saved (projector-<page>-<k>.png)."""
    page = projector.new_page()
    name = path or "Home"
    problems = []
    try:
        _open(page, f"{server}/{path}?{OPENED.get(path, '')}present=on")
        assert error_count(page) == 0, path
        if path == "Watch_a_head_learn":
            _train(page)
        m = _measure(page, NAMED.get((path, 1), ()))
        problems += _problems(f"{name} step 1", m)
        problems += [f"{name}: {p}" for p in accessibility_problems(page)]
        page.screenshot(path=str(artifacts / f"projector-{name}-1.png"))
        found = STEP_OF.search(m["step"] or "")
        k, n = (int(found[1]), int(found[2])) if found else (1, 1)
        while k < n:
            if _reveal(page):  # the revealed answer and its proof, measured too
                problems += _problems(f"{name} step {k} revealed", _measure(page))
            k += 1
            _next_step(page, k)
            problems += _problems(f"{name} step {k}", _measure(page, NAMED.get((path, k), ())))
            assert error_count(page) == 0, f"{path} step {k}"
            page.screenshot(path=str(artifacts / f"projector-{name}-{k}.png"))
    finally:
        page.close()
    if path == "Step_by_step":
        assert n == 11  # steps 0 to 10
    assert not problems, "\n".join(problems)


def _bar(page):
    return page.locator(".st-key-stepper").inner_text()


def test_the_clickers_keys_move_the_steps_and_follow_the_deck_across_pages(projector, server):
    page = projector.new_page()
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
        page.close()
