"""A real `streamlit run` server and Chromium driven by Playwright, for the browser tests
(tests/browser/), the benchmarks that measure a browser or the server (benchmarks/load.py,
browser.py, browser_profile.py, model_memory.py) and scripts/screenshots.py. Neither tests/ nor
benchmarks/ import each other: what they share is here.

Chromium is found by ``find_chromium()``, in this order: the ``ATTNVIZ_CHROMIUM`` environment
variable, Playwright's own downloaded browser (``playwright install chromium``) if it is there,
then Debian's ``/usr/bin/chromium`` (``apt-get install chromium``; tests/run.sh installs it).

    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        page.goto(f"{url}/Step_by_step")
        wait_for_app(page, "A")          # the chart under key "A" is drawn, the run is over
        chart_data(page, "A")["z"]       # what it shows
        show_view(page, "A", "Token lines")  # A's token lines instead (token_lines_data)

Waiting: ``wait_for_run`` waits for the end of the script run (Streamlit's own
``data-test-script-state`` on the app, not its "Running..." widget, which shows only after
half a second). Right after an action that reruns, the previous run's state is still there: wait
first for something the new run draws (``wait_for_chart``, ``wait_for_rows``, a selector), then
for the run. ``python -m tools.browser`` prints the Chromium it finds, or why there is none.
"""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"  # screenshots and server logs, when the folder exists
DEBIAN_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RUN_FINISHED = "[data-testid=stApp][data-test-script-state=notRunning]"


class ChromiumNotFoundError(RuntimeError):
    """No Chromium to drive: the message says where it was looked for."""


_found = {}  # the one answer of find_chromium, for this process


def _playwright_chromium(playwright):
    """(path of Playwright's own Chromium, or None; why not)."""
    try:
        if playwright is None:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                path = p.chromium.executable_path
        else:
            path = playwright.chromium.executable_path
    except Exception as exc:  # not installed, or its driver would not start
        return None, f"Playwright could not tell its browser ({type(exc).__name__}: {exc})"
    if path and Path(path).is_file():
        return path, ""
    return None, "Playwright has no browser of its own"


def _find(playwright):
    env = os.environ.get("ATTNVIZ_CHROMIUM")
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env, "ATTNVIZ_CHROMIUM"
        raise ChromiumNotFoundError(f"ATTNVIZ_CHROMIUM={env} is not an executable file")
    path, why_not = _playwright_chromium(playwright)
    if path:
        return path, "Playwright's own browser"
    if os.access(DEBIAN_CHROMIUM, os.X_OK):
        return DEBIAN_CHROMIUM, "Debian's chromium"
    raise ChromiumNotFoundError(
        f"no Chromium: ATTNVIZ_CHROMIUM is not set, {why_not}, and {DEBIAN_CHROMIUM} is "
        "missing (apt-get install chromium, or run bash tests/run.sh)"
    )


def find_chromium(playwright=None):
    """(path, where it was found) of the Chromium to drive; raises ChromiumNotFoundError.

    Looked up once per process. ``playwright``: a running sync Playwright to ask for its own
    browser; without it, one is started for the question (so not inside ``sync_playwright()``).
    """
    if not _found:
        try:
            _found["answer"] = _find(playwright)
        except ChromiumNotFoundError as exc:
            _found["error"] = exc
    if "error" in _found:
        raise _found["error"]
    return _found["answer"]


def launch_chromium(playwright, **kwargs):
    """Launch the Chromium of ``find_chromium`` (headless, CHROMIUM_ARGS) from ``playwright``."""
    path, _ = find_chromium(playwright)
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, **kwargs)


def __getattr__(name):
    if name == "CHROMIUM":  # the path, looked up on first use: `from tools.browser import CHROMIUM`
        return find_chromium()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout=90, root=ROOT, port=None, env=None):
    """Start `streamlit run app.py` of the checkout ``root`` on loopback ``port`` (or a free
    one), with the environment variables ``env`` ({name: value}) added to this process's;
    yield its base URL; stop it."""
    port = port or free_port()
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
        cwd=root,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:  # a bounded poll of the health endpoint: the server says nothing else
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
        stop(proc)
        if log:
            log.close()


def stop(proc):
    """End the process ``proc`` (a ``subprocess.Popen``): terminate it, and kill it if it has
    not ended 10 s later."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def server_port(url):
    return int(url.rsplit(":", 1)[1])


def server_pid(port):
    """The process id of the streamlit process serving on ``port``."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(cmdline) and str(port).encode() in cmdline:
            return int(pid)
    raise RuntimeError(f"no streamlit process serving on port {port}")


def server_rss_mb(port):
    """Resident memory (MB, VmRSS) of the streamlit process serving on ``port``."""
    for line in Path(f"/proc/{server_pid(port)}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for the streamlit process serving on port {port}")


@contextlib.contextmanager
def own_browsers(browser, **options):
    """Yield ``open_page()``: a new page in a browser of its own (a new context, so its own
    cookies: the Classroom counts one browser as one student), with ``options`` (viewport,
    touch ...). Every one is closed at the end."""
    contexts = []

    def open_page():
        contexts.append(browser.new_context(**options))
        return contexts[-1].new_page()

    try:
        yield open_page
    finally:
        for context in contexts:
            context.close()


def wait_for_run(page, timeout=90_000):
    """Wait until the page's script run has finished (the app's data-test-script-state)."""
    page.wait_for_selector(RUN_FINISHED, timeout=timeout)


def wait_for_app(page, chart_key=None, timeout=90_000):
    """Wait until the page has drawn (``chart_key``'s Plotly heatmap, if given) and its run is
    over. After an action that reruns, wait first for what the new run draws."""
    page.wait_for_selector("[data-testid=stApp]", timeout=timeout)
    if chart_key:
        page.wait_for_selector(
            f".st-key-{chart_key} .js-plotly-plot .heatmaplayer", timeout=timeout
        )
    wait_for_run(page, timeout)


def wait_for_chart(page, key, condition, arg=None, timeout=60_000):
    """Wait until ``condition``, a JavaScript expression of the Plotly graph div ``gd`` of the
    chart under ``key`` (and of ``arg``), is true; then for the run to be over.

        wait_for_chart(page, "A", "gd._fullData[0].z[0][1] === 0")
    """
    page.wait_for_function(
        f"""([key, arg]) => {{
            const gd = document.querySelector(`.st-key-${{key}} .js-plotly-plot`);
            return Boolean(gd && gd._fullData && gd._fullLayout && ({condition}));
        }}""",
        arg=[key, arg],
        timeout=timeout,
    )
    wait_for_run(page, timeout)


def wait_for_rows(page, key, n, timeout=60_000):
    """Wait until the heatmap under ``key`` has ``n`` rows (after a change that reruns)."""
    wait_for_chart(page, key, "gd._fullLayout.yaxis.ticktext.length === arg", n, timeout)


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


def show_view(page, key, view):
    """Switch the attention chart under ``key`` to ``view`` ("Heatmap" or "Token lines") and
    wait for it to be drawn (the lines under ``{key}_lines``) and the run to be over."""
    page.locator(f".st-key-{key}_view button", has_text=view).click()
    drawn = f".st-key-{key}_lines .js-plotly-plot .scatterlayer .trace"
    page.wait_for_selector(drawn if view == "Token lines" else f".st-key-{key} .heatmaplayer")
    wait_for_run(page)


def token_lines_data(page, key):
    """What the token lines under ``{key}_lines`` draw: {"data": [the line traces as Plotly
    holds them: x, y (NaN between segments), opacity, line width], "segments": [the number of
    segments in each line trace's SVG path, in the same order], "selected": the token shown
    alone (["query", i], ["key", j]) or None}."""
    return page.locator(f".st-key-{key}_lines .js-plotly-plot").evaluate(
        """gd => {
            const lines = gd._fullData.filter(t => t.mode === "lines");
            const moves = path => (path.getAttribute("d").match(/M/g) || []).length;
            const segments = t => Array.from(  // Plotly draws each segment as its own path
                gd.querySelectorAll(`.trace${t.uid} path.js-line`), moves
            ).reduce((a, b) => a + b, 0);
            return {
                data: lines.map(t => ({mode: t.mode, x: Array.from(t.x), y: Array.from(t.y),
                                       opacity: t.opacity, line: {width: t.line.width}})),
                segments: lines.map(segments),
                selected: gd._fullLayout.meta.selected,
            };
        }"""
    )


def token_centre(page, key, side, i):
    """Page coordinates of token ``i``'s marker, ``side`` "query" (left, x = 0) or "key"
    (right, x = 1), in the token lines under ``{key}_lines`` (token i at y = i)."""
    return cell_centre(page, f"{key}_lines", i, 0 if side == "query" else 1)


def error_count(page):
    """How many exceptions and error boxes the page shows."""
    return (
        page.locator("[data-testid=stException]").count()
        + page.locator("[data-testid=stAlertContentError]").count()
    )


SERIOUS = ("serious", "critical")  # the axe-core impacts a page must not have


def accessibility_problems(page):
    """What axe-core (axe-playwright-python) finds serious or critical on the page, and every
    Plotly chart without an accessible name, as lines "rule: where"; [] when there is none."""
    from axe_playwright_python.sync_playwright import Axe  # only the tests that use it need it

    found = Axe().run(page).response["violations"]
    lines = [
        f"{v['id']} ({v['impact']}): {node['target']}: {node.get('failureSummary', '')[:160]}"
        for v in found
        if v["impact"] in SERIOUS
        for node in v["nodes"][:3]
    ]
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]
        .filter(e => !(e.getAttribute('aria-label') || e.querySelector('[aria-label]')))
        .map(e => e.className)"""
    )
    return lines + [f"a chart without an accessible name: {c}" for c in unnamed]


def main():
    try:
        path, where = find_chromium()
    except ChromiumNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"{path} ({where})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
