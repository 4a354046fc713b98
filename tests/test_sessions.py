"""Sessions on one server stay apart: each session (a tab of tools/streamlit_client.py, which
speaks Streamlit's protocol as a browser's tab does) shows exactly its own tokens and numbers,
when they are open side by side and after every one of them has changed d_k.
benchmarks/load.py does this with 20 sessions and prints the time and memory it took."""

import asyncio
import json

import numpy as np

import attnviz
from tests.helpers import heatmap_z
from tools.browser import server_port, server_rss_mb, streamlit_server
from tools.streamlit_client import Tab

SESSIONS = 2  # two sessions side by side show they stay apart; benchmarks/load.py runs 20
WORDS = ["cat", "dog", "sun", "sea", "tree", "rain", "moon", "star"]
MAX_MB_PER_SESSION = 50  # the server's growth per session; about 0.3 MB in benchmarks/load.py
TIMEOUT = 180  # s: a page's run on a loaded machine; generous, never a result


def session_query(k, d_k):
    """Session k's own settings: its own words (ending in k), count, seed and mask."""
    tokens = " ".join(f"{WORDS[(k + i) % len(WORDS)]}{k}" for i in range(4 + k))
    return {"tokens": tokens, "d_k": str(d_k), "seed": str(k), "mask": "causal" if k else "none"}


def query_string(query):
    from urllib.parse import urlencode

    return urlencode(query)


def shows(tab, query):
    """Whether ``tab``'s last A is exactly its own settings' (ticks and numbers)."""
    spec = tab.charts.get("A")
    if spec is None:
        return False
    settings, _ = attnviz.from_query(query)
    example = attnviz.compute(settings)
    figure = json.loads(spec)
    if figure["layout"]["yaxis"]["ticktext"] != example.labels:
        return False
    r = example.result  # a masked cell is drawn without a number (NaN)
    shown = r.attention if r.mask is None else np.where(r.mask, r.attention, np.nan)
    return np.array_equal(heatmap_z(figure), shown.astype(np.float32), equal_nan=True)


async def side_by_side(url):
    queries = [session_query(k, d_k=2 + k) for k in range(SESSIONS)]
    tabs = [
        Tab(url, f"session {k}", query_string(q), TIMEOUT, page="Step_by_step")
        for k, q in enumerate(queries)
    ]
    for tab in tabs:
        await tab.__aenter__()
    try:
        for tab in tabs:  # all open at once
            await tab.run()
        for tab, query in zip(tabs, queries, strict=True):
            await tab.until(lambda t=tab, q=query: shows(t, q), f"its own A for {query}")
        for k, tab in enumerate(tabs):  # every session changes d_k ...
            queries[k] = {**queries[k], "d_k": str(5 + k)}  # was 2 + k
            await tab.run(ints={"attnviz_d_k": 5 + k})
        for tab, query in zip(tabs, queries, strict=True):  # ... then all are checked
            await tab.until(lambda t=tab, q=query: shows(t, q), f"its own A for {query}")
            assert not tab.exceptions, tab.exceptions
    finally:
        for tab in tabs:
            await tab.__aexit__(None, None, None)


def test_sessions_on_one_server_stay_apart():
    with streamlit_server() as url:
        warm = {"tokens": "warm up", "d_k": "2"}  # one visit warms the server (imports, run)

        async def warm_up():
            async with Tab(url, "warm", query_string(warm), TIMEOUT, page="Step_by_step") as tab:
                await tab.run()
                await tab.until(lambda: shows(tab, warm), "the first run")

        asyncio.run(warm_up())
        rss_before = server_rss_mb(server_port(url))
        asyncio.run(side_by_side(url))
        per_session = (server_rss_mb(server_port(url)) - rss_before) / SESSIONS
    assert per_session < MAX_MB_PER_SESSION
