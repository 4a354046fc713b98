"""Sessions on one server stay apart: each browser session (its own Chromium context, so its own
Streamlit session) shows exactly its own tokens and numbers, when they are open side by side
and after every one of them has changed d_k. benchmarks/load.py does this with 20 sessions and
prints the time and memory it took."""

from urllib.parse import urlencode

import numpy as np
import pytest

import attnviz
from tools.browser import (
    chart_data,
    error_count,
    server_port,
    server_rss_mb,
    streamlit_server,
    wait_for_app,
    wait_for_run,
)

pytestmark = pytest.mark.browser

SESSIONS = 2  # two sessions side by side show they stay apart; benchmarks/load.py runs 20
WORDS = ["cat", "dog", "sun", "sea", "tree", "rain", "moon", "star"]
MAX_MB_PER_SESSION = 50  # the server's growth per session; about 0.3 MB in benchmarks/load.py


def session_query(k, d_k):
    """Session k's own settings: its own words (ending in k), count, seed and mask."""
    tokens = " ".join(f"{WORDS[(k + i) % len(WORDS)]}{k}" for i in range(4 + k))
    return {"tokens": tokens, "d_k": str(d_k), "seed": str(k), "mask": "causal" if k else "none"}


def assert_shows(page, query):
    """The session shows exactly its own tokens and numbers, and no error."""
    settings, _ = attnviz.from_query(query)
    example = attnviz.compute(settings)
    data = chart_data(page, "A")
    assert data["ticks"] == example.labels
    drawn = np.array(data["z"], dtype=np.float32)
    r = example.result  # a masked cell is drawn without a number (NaN)
    shown = r.attention if r.mask is None else np.where(r.mask, r.attention, np.nan)
    assert np.array_equal(drawn, shown.astype(np.float32), equal_nan=True)
    assert error_count(page) == 0


def test_sessions_on_one_server_stay_apart(browser):
    with streamlit_server() as url:
        warm = browser.new_page()  # one visit warms the server (imports, first run)
        warm.goto(f"{url}/Step_by_step")
        wait_for_app(warm, "A")
        warm.close()
        rss_before = server_rss_mb(server_port(url))
        contexts = [browser.new_context() for _ in range(SESSIONS)]
        try:
            pages = [context.new_page() for context in contexts]
            queries = [session_query(k, d_k=2 + k) for k in range(SESSIONS)]
            for page, query in zip(pages, queries, strict=True):  # all open at once
                page.goto(f"{url}/Step_by_step?{urlencode(query)}")
            for page, query in zip(pages, queries, strict=True):
                wait_for_app(page, "A")
                assert_shows(page, query)
            for k, page in enumerate(pages):  # every session changes d_k ...
                queries[k] = {**queries[k], "d_k": str(5 + k)}  # was 2 + k
                box = page.locator(".st-key-attnviz_d_k input")
                box.fill(queries[k]["d_k"])
                box.press("Enter")
            for page, query in zip(pages, queries, strict=True):  # ... then all are checked
                page.wait_for_function(
                    "d_k => new URLSearchParams(location.search).get('d_k') === d_k",
                    arg=query["d_k"],
                    timeout=60_000,
                )
                wait_for_run(page)
                assert_shows(page, query)
            per_session = (server_rss_mb(server_port(url)) - rss_before) / SESSIONS
        finally:
            for context in contexts:
                context.close()
    assert per_session < MAX_MB_PER_SESSION
