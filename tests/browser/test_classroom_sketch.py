"""Sketch the row in a browser: a lecturer (1280 × 720, projector mode) asks the row of A for
query "on" under the causal mask; three students sketch three different rows and submit: one on a
phone in Chromium (390 × 844, touch) with taps, two as plain HTTP clients of the room (the light
phone's API: they draw nothing); the lecturer shows two snapshots (closest, farthest: picked in
the lecturer-only panel), then reveals. The class's mean, the true row and the distances are
read back from the drawn charts and checked against the sketches and the core's A, and each
student is told their own distance. A tap on a masked key's row changes nothing; every tap
target is at least 44 px; the phone does not scroll sideways. Screenshots in test-artifacts/."""

import contextlib
import json

import numpy as np
import pytest
from playwright.sync_api import Error as PlaywrightError

import attnviz
from attnviz.classroom.sketch import variant_settings
from tools.browser import error_count, wait_for_run
from tools.classroom_browser import PHONE, HttpPhone

pytestmark = pytest.mark.browser

QUERY, LABEL = 3, "on"
TAPS = [(2, 4), (5, 4), (2, 3)]  # the Chromium phone's (key, level) taps from "same for all"
# (1, 1, 1, 1, 0, 0); key 5 is masked: its row takes no tap (the next tap's run shows it)
# the two HTTP students' sketches, then the one the Chromium phone's taps make
SKETCHES = [(1, 5, 1, 1, 0, 0), (0, 1, 4, 1, 0, 0), (1, 1, 3, 1, 0, 0)]
TRUTH = attnviz.compute(variant_settings(attnviz.Settings(), "causal")).result.attention[QUERY]


def main_button(page, text):
    return page.locator("[data-testid=stMain] button", has_text=text)


# A chart's own element: not one that a fragment's rerun keeps on screen until it is redrawn
OWN = ":not([data-retained]):not([data-stale=true])"
CHART = ".st-key-{key}" + OWN + " .js-plotly-plot"


def trace_x(page, key, trace):
    return page.locator(CHART.format(key=key)).evaluate(
        "(gd, t) => Array.from(gd._fullData[t].x)", trace
    )


def wait_for_traces(page, key, n, timeout=60_000):
    """Wait until the chart under ``key`` is drawn with ``n`` traces, and the run is over."""
    page.wait_for_function(
        """([sel, n]) => [...document.querySelectorAll(sel)]
            .some(gd => gd._fullData && gd._fullData.length === n)""",
        arg=[CHART.format(key=key), n],
        timeout=timeout,
    )
    wait_for_run(page, timeout)


def choose(page, key, option):
    """Pick ``option`` (its text) in the select box ``key`` (a combo box)."""
    box = page.locator(f".st-key-{key} input[role=combobox]")
    for _ in range(6):  # a click while the page reruns may open no list: open it again
        box.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
            break
        except PlaywrightError:
            page.keyboard.press("Escape")
    page.wait_for_function(
        "([k, v]) => document.querySelector(`.st-key-${k} input`).value === v", arg=[key, option]
    )
    wait_for_run(page)


# the sketch's own chart (its key counts the taps)
SKETCH_CHART = "[class*=st-key-{key}_chart_]" + OWN + " .js-plotly-plot"
# plotly.js runs a chart's hover at most once per 50 ms (fx's HOVERMINTIME), and a tap is read at
# the last hover's place: a tap sooner than that after the one before is read where that one was
HOVER_MS = 50


# A chart takes a tap once Streamlit shows it (hidden until its width is known, then drawn
# again) and Plotly's selection event has Streamlit's handler
TAKES_TAPS = """sel => { const gd = document.querySelector(sel);
    return Boolean(gd && gd._fullLayout && getComputedStyle(gd).visibility !== "hidden" &&
                   gd._ev && gd._ev.listenerCount("plotly_selected") > 0); }"""


def tap(phone, key, j, level):
    """Tap key ``j``'s row at ``level`` in the sketch ``key``, once its chart takes taps."""
    phone.wait_for_function(TAKES_TAPS, arg=SKETCH_CHART.format(key=key), timeout=60_000)
    plot = phone.locator(SKETCH_CHART.format(key=key))
    plot.scroll_into_view_if_needed(timeout=10_000)
    x, y = plot.evaluate(
        """(gd, a) => {const L = gd._fullLayout, b = gd.getBoundingClientRect();
        return [b.left + L._size.l + L.xaxis.l2p(a[1]), b.top + L._size.t + L.yaxis.l2p(a[0])];}""",
        [j, level],
    )
    phone.touchscreen.tap(x, y)


def tap_at_a_persons_pace(phone, key, j, level):
    """``tap``, then wait until Plotly's hover window (HOVER_MS) after it has passed, so that
    the next tap is read where it lands (a tap that sets nothing shows no event to wait on)."""
    phone.evaluate(
        """() => document.addEventListener("touchend", () => {
            window.lastTap = performance.now(); }, {capture: true, once: true})"""
    )
    tap(phone, key, j, level)
    phone.wait_for_function(
        "ms => window.lastTap && performance.now() - window.lastTap > ms",
        arg=2 * HOVER_MS,
        polling="raf",
    )


def drawn_levels(phone, key):
    return phone.locator(SKETCH_CHART.format(key=key)).evaluate(
        "gd => Array.from(gd._fullData[0].x)"
    )


def tap_until(phone, key, j, level, tries=6):
    """Tap until key ``j``'s bar is drawn at ``level``: a run that replaces the chart between
    ``tap``'s wait and its tap (a loaded machine) loses the tap, and tapping the same place
    again sets the same level, so a second tap is safe."""
    wanted = f"gd => gd._fullData && gd._fullData[0].x[{j}] === {level}"
    for _ in range(tries):
        with contextlib.suppress(PlaywrightError):  # the chart was replaced meanwhile
            tap(phone, key, j, level)
        with contextlib.suppress(PlaywrightError):
            phone.wait_for_function(
                f"""() => {{const gd = document.querySelector("{SKETCH_CHART.format(key=key)}");
                return Boolean(gd && ({wanted})(gd));}}""",
                timeout=20_000,
            )
            break
    wait_for_run(phone)
    assert drawn_levels(phone, key)[j] == level


def test_three_phones_sketch_and_the_projector_reveals(browser, server, artifacts):
    projector = browser.new_context(viewport={"width": 1280, "height": 720})
    phones = browser.new_context(**PHONE)
    try:
        lecturer = projector.new_page()
        lecturer.goto(f"{server}/Classroom?present=on")
        main_button(lecturer, "Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        wait_for_run(lecturer)
        lecturer.get_by_text("Sketch the row", exact=True).click()
        lecturer.locator(".st-key-cls_sk_query").wait_for()
        choose(lecturer, "cls_sk_query", LABEL)
        choose(lecturer, "cls_sk_variant", "with the causal mask")
        main_button(lecturer, "Ask the class to sketch this row").click()
        lecturer.wait_for_selector("text=Sketched", timeout=60_000)
        others = [HttpPhone(server, code) for _ in SKETCHES[:-1]]
        for other, levels in zip(others, SKETCHES, strict=False):
            assert other.post("sketch", levels=list(levels)).status_code == 200
        student = phones.new_page()
        student.goto(f"{server}/Classroom?room={code}")
        key = "cls_sk_1"
        student.locator(f".st-key-{key}_chart_0 .js-plotly-plot").wait_for(timeout=90_000)
        wait_for_run(student)
        for j, level in TAPS:
            if j == 5:  # masked: the tap reaches no marker and sets nothing
                tap_at_a_persons_pace(student, key, j, level)
                continue
            tap_until(student, key, j, level)
        wait_for_run(student)
        assert tuple(drawn_levels(student, key)) == SKETCHES[-1]
        assert student.evaluate("document.documentElement.scrollWidth") <= 390
        heights = student.locator("[data-testid=stMain] button").evaluate_all(
            "bs => bs.filter(b => b.offsetParent).map(b => b.getBoundingClientRect().height)"
        )
        assert min(heights) >= 44, heights
        pitch = student.locator(SKETCH_CHART.format(key=key)).evaluate(
            """gd => {const L = gd._fullLayout, m = gd._fullData[1].marker;
            return [L.xaxis.l2p(1) - L.xaxis.l2p(0), L.yaxis.l2p(1) - L.yaxis.l2p(0),
                    m.size + 2 * L.hoverdistance];}"""
        )
        assert min(pitch) >= 44, pitch  # a level and a row apart, and each tap's reach
        student.locator(f".st-key-{key}_submit").scroll_into_view_if_needed()
        student.screenshot(path=artifacts / "Classroom_sketch_phone.png")
        main_button(student, "Submit").tap()
        student.wait_for_selector("text=Sketch sent. It is locked", timeout=60_000)
        lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=3 of 3", timeout=60_000)
        # the picks are for the lecturer only: folded away on the projector
        assert not main_button(lecturer, "Closest").is_visible()
        lecturer.get_by_text("For the lecturer only: the sketches to show").click()
        main_button(lecturer, "Closest").click(timeout=90_000)
        wait_for_traces(lecturer, "cls_sk_snaps", 1)
        main_button(lecturer, "Farthest").click()
        wait_for_traces(lecturer, "cls_sk_snaps", 2)
        weights = np.array(SKETCHES, dtype=float) / np.sum(SKETCHES, axis=1, keepdims=True)
        distances = 0.5 * np.abs(weights - TRUTH).sum(axis=1)
        shown = [trace_x(lecturer, "cls_sk_snaps", t) for t in (0, 1)]
        np.testing.assert_allclose(shown[0], weights[np.argmin(distances)], atol=1e-12)
        np.testing.assert_allclose(shown[1], weights[np.argmax(distances)], atol=1e-12)
        lecturer.locator(".st-key-cls_sk_snaps:not([data-retained])").scroll_into_view_if_needed()
        lecturer.screenshot(path=artifacts / "Classroom_sketch_snapshots.png")
        main_button(lecturer, "Reveal").click()
        wait_for_traces(lecturer, "cls_sk_mean", 2)
        np.testing.assert_allclose(trace_x(lecturer, "cls_sk_mean", 0), weights.mean(axis=0))
        np.testing.assert_allclose(trace_x(lecturer, "cls_sk_mean", 1), TRUTH, atol=1e-12)
        drawn = sorted(trace_x(lecturer, "cls_sk_dist", 1))
        np.testing.assert_allclose(drawn, sorted(distances), atol=1e-12)
        lecturer.locator(".st-key-cls_sk_mean:not([data-retained])").scroll_into_view_if_needed()
        lecturer.screenshot(path=artifacts / "Classroom_sketch_reveal.png")
        wait_for_traces(student, "cls_sk_mine", 2, timeout=90_000)
        np.testing.assert_allclose(trace_x(student, "cls_sk_mine", 0), weights[-1])
        np.testing.assert_allclose(trace_x(student, "cls_sk_mine", 1), TRUTH, atol=1e-12)
        text = student.locator("[data-testid=stMain]").inner_text()
        assert f"Your distance to the true row: {distances[-1]:.2f}" in text
        assert error_count(student) == 0
        for other, d in zip(others, distances, strict=False):  # each told their own distance
            said = other.state()
            assert f"Your distance to the true row: {d:.2f}" in json.dumps(said), said
        student.locator(".st-key-cls_sk_mine").scroll_into_view_if_needed()
        student.screenshot(path=artifacts / "Classroom_sketch_phone_reveal.png")
        assert error_count(lecturer) == 0
    finally:
        projector.close()
        phones.close()
