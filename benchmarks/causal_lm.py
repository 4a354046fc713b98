"""The chat model's bounds: loading time and memory, a 32-token forward pass, a generated token,
and a server's memory with this model and MiniLM both loaded. Prints the figures for
docs/performance.md.

    python -m benchmarks.causal_lm            # in this process: quantised, then dense float32
    python -m benchmarks.causal_lm --modes quantised
    python -m benchmarks.causal_lm --server   # a `streamlit run` on 127.0.0.1: both pages

Each in-process measurement runs in a fresh subprocess (so RSS is that of one model alone).
``--server`` starts its own server on loopback, opens the Real model page and then the chat page
in headless Chromium (each model loads), generates 8 tokens, and prints the server's VmRSS.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, statistics, sys, time
from attnviz.causal_lm import load_causal_lm

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

dense = sys.argv[2] == "dense"
t = time.perf_counter()
lm = load_causal_lm(dense=dense)
load = time.perf_counter() - t
after_load = rss()
text = " word" * 32  # 32 tokens
assert lm.count_tokens(text) == 32
forwards, cpu = [], []
for _ in range(3):
    t, c = time.perf_counter(), time.process_time()
    run = lm.run(text)
    forwards.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
t, c = time.perf_counter(), time.process_time()
generation = lm.generate(run, 8)
tokens, token_cpu = (time.perf_counter() - t) / 8, (time.process_time() - c) / 8
print(json.dumps({
    "mode": sys.argv[2], "load_s": load, "weights_mb": lm.weights.nbytes / 1e6,
    "rss_after_load_mb": after_load, "forward_32_s": statistics.median(forwards),
    "token_s": tokens, "forward_cpu_s": statistics.median(cpu), "token_cpu_s": token_cpu,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def in_process(modes):
    for mode in modes:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT), mode],
            capture_output=True,
            text=True,
        )
        if out.returncode:
            raise SystemExit(out.stderr)
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{mode:9s}: load {figures['load_s']:.1f} s, weights {figures['weights_mb']:.0f} MB,"
            f" RSS after loading {figures['rss_after_load_mb']:.0f} MB (peak "
            f"{figures['peak_rss_mb']:.0f} MB), 32-token forward {figures['forward_32_s']:.2f} s"
            f" (median of 3; CPU {figures['forward_cpu_s']:.2f} s), a generated token "
            f"{figures['token_s']:.2f} s (mean of 8; CPU {figures['token_cpu_s']:.2f} s)"
        )


def server():
    from playwright.sync_api import sync_playwright

    from tools.browser import (
        launch_chromium,
        server_port,
        server_rss_mb,
        streamlit_server,
        wait_for_app,
        wait_for_chart,
    )

    with streamlit_server() as url, sync_playwright() as p:
        port = server_port(url)
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        print(f"server started: {server_rss_mb(port):.0f} MB")
        page.goto(f"{url}/Real_model")
        wait_for_app(page, "model_grid", timeout=300_000)
        print(f"MiniLM loaded, its page drawn: {server_rss_mb(port):.0f} MB")
        t = time.perf_counter()
        page.goto(f"{url}/Inside_a_chat_model")
        wait_for_app(page, "chat_a", timeout=300_000)
        print(
            f"SmolLM2 loaded too, its page drawn ({time.perf_counter() - t:.1f} s): "
            f"{server_rss_mb(port):.0f} MB"
        )
        clicks = []
        button = page.get_by_role("button", name="Generate one more")
        for k in range(1, 9):
            t = time.perf_counter()
            button.click()
            wait_for_chart(page, "chat_step_row", "gd._fullData[0].y.length === arg", 5 + k)
            clicks.append(time.perf_counter() - t)
        print(
            f"8 tokens generated one click at a time (median {statistics.median(clicks):.2f} s a "
            f"click, page update included): {server_rss_mb(port):.0f} MB"
        )
        browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", action="store_true")
    parser.add_argument("--modes", nargs="+", default=["quantised", "dense"])
    args = parser.parse_args()
    server() if args.server else in_process(args.modes)
