"""Load test: many sessions on one `streamlit run` server, each with its own settings.

Bounded and on loopback only: starts its own server on 127.0.0.1, opens SESSIONS browser
sessions (separate Chromium contexts, so separate Streamlit sessions), each with its own tokens
and seed, then in each of ROUNDS rounds every session changes d_k. After every round it checks
that each session still shows its own tokens and exactly its own numbers (no session sees
another's), and that no page shows an error. Prints the server's memory (VmRSS) before, with
all sessions open, and per session, and the time each round took.

    python -m benchmarks.load [--sessions 20] [--rounds 3]
"""

import argparse
import os
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
from playwright.sync_api import sync_playwright

import attnviz
from tools.browser import (
    chart_data,
    error_count,
    launch_chromium,
    server_port,
    server_rss_mb,
    streamlit_server,
    wait_for_app,
    wait_for_run,
)

ROOT = Path(__file__).resolve().parent.parent


def session_query(k, d_k):
    words = ["cat", "dog", "sun", "sea", "tree", "rain", "moon", "star"]
    tokens = " ".join(f"{words[(k + i) % len(words)]}{k}" for i in range(4 + k % 5))
    return {
        "tokens": tokens,
        "d_k": str(d_k),
        "seed": str(k),
        "mask": "causal" if k % 2 else "none",
    }


def check(page, query):
    """The session shows exactly its own tokens and numbers, and no error."""
    settings, _ = attnviz.from_query(query)
    example = attnviz.compute(settings)
    data = chart_data(page, "A")
    assert data["ticks"] == example.labels, (data["ticks"], example.labels)
    r = example.result  # a masked cell is drawn without a number (NaN)
    expected = (r.attention if r.mask is None else np.where(r.mask, r.attention, np.nan)).astype(
        np.float32
    )
    assert np.array_equal(np.array(data["z"], dtype=np.float32), expected, equal_nan=True)
    assert error_count(page) == 0


def set_d_k(page, d_k):
    box = page.locator(".st-key-attnviz_d_k input")
    box.fill(str(d_k))
    box.press("Enter")


def run(sessions, rounds):
    with streamlit_server() as url, sync_playwright() as p:
        port = server_port(url)
        browser = launch_chromium(p)
        page0 = browser.new_page()  # one visit warms the server (imports, first run)
        page0.goto(f"{url}/Step_by_step")
        wait_for_app(page0, "A")
        page0.close()
        rss_before = server_rss_mb(port)
        pages, queries = [], []
        start = time.perf_counter()
        for k in range(sessions):
            page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
            query = session_query(k, d_k=2 + k % 3)
            page.goto(f"{url}/Step_by_step?{urlencode(query)}")
            pages.append(page)
            queries.append(query)
        for page, query in zip(pages, queries, strict=True):
            wait_for_app(page, "A")
            check(page, query)
        opened = time.perf_counter() - start
        rss_open = server_rss_mb(port)
        print(f"{sessions} sessions opened and checked in {opened:.1f} s")
        for r in range(rounds):
            start = time.perf_counter()
            for k, page in enumerate(pages):  # every session changes its settings ...
                queries[k] = {**queries[k], "d_k": str(3 + (k + r) % 6)}
                set_d_k(page, queries[k]["d_k"])
            for page, query in zip(pages, queries, strict=True):  # ... then all are checked
                page.wait_for_function(
                    "q => new URLSearchParams(location.search).get('d_k') === q", arg=query["d_k"]
                )
                wait_for_run(page)
                check(page, query)
            print(
                f"round {r + 1}: {sessions} sessions changed d_k, all correct, "
                f"{time.perf_counter() - start:.1f} s"
            )
        rss_end = server_rss_mb(port)
        browser.close()
    per_session = (rss_end - rss_before) / sessions
    print(
        f"server memory: {rss_before:.0f} MB with no session, {rss_open:.0f} MB with "
        f"{sessions} open, {rss_end:.0f} MB after {rounds} rounds: "
        f"{per_session:.1f} MB per session"
    )
    return per_session


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(time.strftime("%Y-%m-%d"), f"{os.cpu_count()} cores")
    run(args.sessions, args.rounds)


if __name__ == "__main__":
    main()
