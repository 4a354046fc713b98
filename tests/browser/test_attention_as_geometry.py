"""The geometry page in a browser: its own Plotly sliders turn and stretch the query, and the bars
show the core's new weights, with no Streamlit rerun."""

import contextlib
import re

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from attnviz import self_attention
from attnviz.lessons.geometry import DEFAULT_KEYS, query_vectors
from attnviz.limits import GEO_LENGTHS
from attnviz.links.geometry import start_length
from tools.browser import error_count, wait_for_run

pytestmark = pytest.mark.browser

CHART = ".st-key-geometry .js-plotly-plot"
# Counts the script runs from now on: Streamlit sets data-test-script-state on the app to
# "running" for each one. Each change is read from its own record (its old value), not from the
# attribute when the observer is called: on a loaded machine a run may have started and ended by
# then, and would be missed.
COUNT_RUNS = """() => {
    window.geoRuns = 0;
    const app = document.querySelector('[data-testid=stApp]');
    let state = app.getAttribute('data-test-script-state');
    new MutationObserver(records => {
        for (let i = 0; i < records.length; i++) {  // what a change left: the next one's old value
            const now = i + 1 < records.length ? records[i + 1].oldValue
                : app.getAttribute('data-test-script-state');
            if (now === 'running' && state !== 'running') window.geoRuns += 1;
            state = now;
        }
    }).observe(app, {attributes: true, attributeOldValue: true,
                     attributeFilter: ['data-test-script-state']});
}"""
START = GEO_LENGTHS[start_length(DEFAULT_KEYS)]  # the query's length when the page opens
SHOWN_WEIGHTS = "gd => gd._fullData.filter(t => t.type === 'bar' && t.visible === true)[0].x"


def core_weights(angle, length):
    """The default keys' weights for the query at ``angle`` degrees and ``length``, from
    self_attention on the 2-D vectors [q; k_1; ...], query 0 seeing only the keys."""
    X = np.vstack([query_vectors([angle], [length])[0, 0], DEFAULT_KEYS])
    mask = np.zeros((len(X), len(X)), dtype=bool)
    mask[0, 1:] = True
    return self_attention(X, np.eye(2), np.eye(2), np.eye(2), mask=mask).attention[0, 1:]


def table_weights(chart):
    """The weight column as the table's drawn text shows it (θ, q·k, q·k / √2, a per key)."""
    texts = chart.evaluate(
        "gd => Array.from(gd.querySelectorAll('.x4y4 .scatterlayer .trace'))"
        ".at(-1).querySelectorAll('text').values().map(t => t.textContent).toArray()"
    )
    return [float(v) for v in texts[3::4]]


def click_step(page, slider, label):
    """Press the mouse on slider ``slider`` (0 angle, 1 length) where its step ``label`` is."""
    chart = page.locator(CHART)
    group = chart.locator(".slider-group").nth(slider)
    step = group.locator(".slider-label", has_text=re.compile(f"^{re.escape(label)}$"))
    rail = group.locator(".slider-rail-rect").bounding_box()
    box = step.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, rail["y"] + rail["height"] / 2)


def wait_for_weights(page, slider, step, weights):
    """Wait until slider ``slider`` is at ``step`` and the bars show ``weights``: the slider's
    mark moves before its restyle has drawn the bars (on a loaded machine, long before). After
    the deadline the caller's comparison says what the bars show."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            f"""([slider, step, weights]) => {{
                const gd = document.querySelector('{CHART}');
                const shown = ({SHOWN_WEIGHTS})(gd);
                return gd._fullLayout.sliders[slider].active === step &&
                    weights.every((w, i) => Math.abs(shown[i] - w) < 5e-5);
            }}""",
            arg=[slider, step, [float(w) for w in weights]],
            timeout=60_000,
        )


def reruns_asked(frames):
    """The BackMsgs among ``frames`` (what the page sent on its WebSocket) that ask the server
    for a script run: what any Streamlit widget's change sends at once."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return [
        frame
        for frame in frames
        if isinstance(frame, bytes)
        and BackMsg.FromString(frame).WhichOneof("type") == "rerun_script"
    ]


def test_the_sliders_redraw_the_cores_weights_without_a_rerun(page, server, artifacts):
    sent = []  # every frame the page sends to the server
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    page.goto(f"{server}/Attention_as_geometry")
    page.wait_for_selector(f"{CHART} .barlayer", timeout=90_000)
    wait_for_run(page)
    chart = page.locator(CHART)
    chart.scroll_into_view_if_needed()
    np.testing.assert_allclose(chart.evaluate(SHOWN_WEIGHTS), core_weights(30, START), atol=5e-5)
    page.evaluate(COUNT_RUNS)
    sent.clear()

    click_step(page, 0, "120°")
    wait_for_weights(page, 0, 12, core_weights(120, START))
    np.testing.assert_allclose(chart.evaluate(SHOWN_WEIGHTS), core_weights(120, START), atol=5e-5)
    np.testing.assert_allclose(table_weights(chart), core_weights(120, START), atol=5e-4)
    click_step(page, 1, "4")  # the length slider keeps the angle where it is
    wait_for_weights(page, 1, 4, core_weights(120, 4))
    np.testing.assert_allclose(chart.evaluate(SHOWN_WEIGHTS), core_weights(120, 4), atol=5e-5)
    np.testing.assert_allclose(table_weights(chart), core_weights(120, 4), atol=5e-4)
    assert reruns_asked(sent) == []  # a widget asks in its own event handler: none did
    assert page.evaluate("() => window.geoRuns") == 0
    assert page.locator("[data-testid=stApp]").get_attribute("data-test-script-state") == (
        "notRunning"
    )
    assert error_count(page) == 0
    chart.screenshot(path=artifacts / "geometry-after-sliders.png")
    # The counter does see a rerun: the d_k slider, a Streamlit widget, causes one
    page.locator(".st-key-geo_dk input[type=range]").press("ArrowRight")
    page.wait_for_function("() => window.geoRuns >= 1", timeout=60_000)
    assert reruns_asked(sent)  # and the frames show it asked for one
    wait_for_run(page)
    assert "geo_dk=65" in page.url
