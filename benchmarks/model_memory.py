"""Server memory per browser session on the real-model page, at its 128-word-piece limit.

Bounded and on loopback only: starts its own `streamlit run app.py` on 127.0.0.1, opens the
real-model page once with the default sentence (the model loads) and closes it, then opens
SESSIONS more browser sessions one after another (separate Chromium contexts, so separate
Streamlit sessions), each with a sentence of at least MAX_MODEL_TOKENS word pieces in the
`tokens` URL parameter, and keeps them open. After each it prints the server's resident memory
(VmRSS of /proc/<pid>/status) and the bytes the session's WebSocket received. ``--same``
gives every session the same sentence, so that the model's run is computed once and shared:
what is left is what a session itself costs.

    python -m benchmarks.model_memory [--sessions 5] [--same]
"""

import argparse
import os
import time
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import sync_playwright

from attnviz.limits import MAX_MODEL_TOKENS
from tools.browser import (
    launch_chromium,
    server_port,
    server_rss_mb,
    streamlit_server,
    wait_for_app,
)

ROOT = Path(__file__).resolve().parent.parent


POOL = (
    "every student in the class types a sentence of their own and the model reads it word "
    "by word while each head decides how much one piece matters to another"
)
WORDS = POOL.split(" ")
TIMEOUT = 300_000  # ms: a 128-piece page on a busy 2-core machine


def sentence(k):
    """Session k's text: the pool of words rotated by k, long enough to be cut at the limit."""
    words = WORDS[k % len(WORDS) :] + WORDS[: k % len(WORDS)]
    return " ".join(words[i % len(words)] for i in range(MAX_MODEL_TOKENS + 20))


def count_received(page):
    """A one-item list that adds up the bytes the page's WebSocket receives from the server."""
    received = [0]

    def on_socket(ws):
        ws.on("framereceived", lambda payload: received.__setitem__(0, received[0] + len(payload)))

    page.on("websocket", on_socket)
    return received


def run(sessions, same):
    with streamlit_server() as url, sync_playwright() as p:
        port = server_port(url)
        browser = launch_chromium(p)
        warm = browser.new_page()  # the model loads once per server
        warm.goto(f"{url}/Real_model")
        wait_for_app(warm, "model_grid", timeout=TIMEOUT)
        warm.close()
        time.sleep(2)
        base = server_rss_mb(port)
        print(f"server: {base:.0f} MB after the model loaded (no session open)")
        pages = []
        for k in range(sessions):
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            received = count_received(page)
            query = {"tokens": sentence(0 if same else k)}
            page.goto(f"{url}/Real_model?{urlencode(query)}")
            wait_for_app(page, "model_grid", timeout=TIMEOUT)
            wait_for_app(page, "model_A", timeout=TIMEOUT)
            assert page.get_by_text(f"limit, {MAX_MODEL_TOKENS} word pieces").count() == 1
            pages.append(page)
            time.sleep(2)
            rss = server_rss_mb(port)
            print(
                f"{k + 1} session(s) at {MAX_MODEL_TOKENS} pieces: {rss:.0f} MB "
                f"(+{rss - base:.0f} MB, {(rss - base) / (k + 1):.1f} MB per session); "
                f"the page received {received[0] / 1e6:.1f} MB"
            )
        browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--same", action="store_true", help="one sentence for every session")
    args = parser.parse_args()
    print(time.strftime("%Y-%m-%d"), f"{os.cpu_count()} cores", "same" if args.same else "")
    run(args.sessions, args.same)


if __name__ == "__main__":
    main()
