"""Helpers for the browser tests: a real `streamlit run` server and Debian's Chromium."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "test-artifacts"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout=90):
    """Start `streamlit run app.py` on a free loopback port; yield its base URL; stop it."""
    port = free_port()
    log = (ARTIFACTS / f"streamlit-{port}.log").open("w") if ARTIFACTS.is_dir() else None
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start on port {port}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if log:
            log.close()


def wait_for_app(page, chart_key=None, timeout=90_000):
    """Wait until the page has finished running (and drawn ``chart_key``'s Plotly chart)."""
    page.wait_for_selector("[data-testid=stApp]", timeout=timeout)
    if chart_key:
        page.wait_for_selector(
            f".st-key-{chart_key} .js-plotly-plot .heatmaplayer", timeout=timeout
        )
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]')", timeout=timeout
    )


def wait_for_rows(page, key, n, timeout=60_000):
    """Wait until the heatmap under ``key`` has ``n`` rows (after a change that reruns)."""
    page.wait_for_function(
        """([key, n]) => {
            const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
            return gd && gd._fullLayout.yaxis.ticktext.length === n;
        }""",
        arg=[key, n],
        timeout=timeout,
    )
    wait_for_app(page, key)


def chart_data(page, key):
    """{"z": rows of floats, "ticks": y tick labels} of the heatmap drawn under ``key``."""
    return page.locator(f".st-key-{key} .js-plotly-plot").evaluate(
        """gd => ({
            z: Array.from(gd._fullData[0].z, row => Array.from(row, v => v ?? NaN)),
            ticks: gd._fullLayout.yaxis.ticktext,
        })"""
    )


def cell_centre(page, key, i, j):
    """Page coordinates of the centre of cell (row i, column j) of the chart under ``key``."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot")
    plot.scroll_into_view_if_needed()
    return plot.evaluate(
        """(gd, ij) => {
            const L = gd._fullLayout, box = gd.getBoundingClientRect();
            return [box.left + L._size.l + L.xaxis.l2p(ij[1]),
                    box.top + L._size.t + L.yaxis.l2p(ij[0])];
        }""",
        [i, j],
    )


def hover_cell(page, key, i, j):
    """Wait for the chart under ``key``, put the mouse on its cell (i, j), and return
    ((x, y), the hover text)."""
    wait_for_app(page, key)
    x, y = cell_centre(page, key, i, j)
    page.mouse.move(x, y)
    return (x, y), page.locator(f".st-key-{key} .hoverlayer").text_content(timeout=10_000)


def error_count(page):
    return (
        page.locator("[data-testid=stException]").count()
        + page.locator("[data-testid=stAlertContentError]").count()
    )
