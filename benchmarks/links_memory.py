"""Server memory while a class opens many distinct max-size links, with Streamlit's default
session TTL (a closed tab's session is kept ``server.disconnectedSessionTTL`` = 120 s).

Starts its own `streamlit run` on loopback (no other address) and drives it with websocket
clients (what a browser sends: a rerun with the link's query string; no browser, so the server
is what is measured). For each page of ``--pages`` it opens ``--links`` distinct links at the
page's limits, first one after another, then ``--at-once`` at a time, each socket closed as soon
as its script has run, and prints the server's resident memory (VmRSS) after each link (and
each batch), the largest, and the growth per link over the second half:

* Step_by_step, Your_own_numbers, Multi_head: n = d_model = d_k = d_v = 512 (Your own numbers:
  its own 64 x 64 matrices through its link), a new seed each;
* Real_model: distinct long sentences (over the model's 128 word pieces);
* Watch_a_head_learn: distinct configurations (seed, sizes), each trained (Train pressed).

``--innocent`` also measures an innocent student's change (d_k on Step by step at classroom
size) while the ``--at-once`` heavy links run, against the same change alone: p50/p95/max.

Exits 1 when the memory passed ``--target-mb`` (700 MB: Community Cloud gives about 1 GB).
Bounded: every loop has a fixed count, every wait a timeout. A benchmark, never a test.

    python -m benchmarks.links_memory [--links 40] [--at-once 10] [--pages Step_by_step,...]
"""

import argparse
import asyncio
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect  # a dependency of Streamlit itself

from tools.browser import server_port, server_rss_mb, streamlit_server

ROOT = Path(__file__).resolve().parent.parent


PAGES = ("Step_by_step", "Your_own_numbers", "Multi_head", "Real_model", "Watch_a_head_learn")
MAX = {"n": 512, "d_model": 512, "d_k": 512, "d_v": 512}
WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "cats")


def own_matrix(rows, cols, seed):
    values = np.random.default_rng(seed).integers(-9, 10, (rows, cols))
    return ";".join(",".join(str(v) for v in row) for row in values)


def query(page, k):
    """The k-th distinct link of ``page`` at its limits."""
    if page == "Your_own_numbers":
        return {name: own_matrix(64, 64, 4 * k + i) for i, name in enumerate(NAMES)}
    if page == "Real_model":
        rng = np.random.default_rng(k)
        return {"tokens": " ".join(rng.choice(WORDS, 140))}  # > 128 word pieces
    if page == "Watch_a_head_learn":
        return {
            "seed": 100 + k,
            "gpt_task": ("previous", "sort", "text")[k % 3],
            "gpt_layers": 1 + k % 2,
            "gpt_heads": 1 + k % 4,
            "gpt_dmodel": (24, 48)[k % 2],
            "gpt_steps": 200,
        }
    return MAX | {"seed": 1000 + k}


NAMES = ("X", "W_Q", "W_K", "W_V")


class Client:
    """One tab: a websocket session on the server."""

    def __init__(self, base):
        self.base = base.replace("http://", "ws://")
        self.ws = None
        self.buttons = {}  # widget key -> widget id, from the elements drawn

    async def connect(self):
        self.ws = await connect(
            f"{self.base}/_stcore/stream", open_timeout=60, max_size=None, compression=None
        )

    async def rerun(self, page, query_string, widgets=(), timeout=600):
        """Run ``page`` with ``query_string`` (and ``widgets``: BackMsg WidgetStates); wait
        until its script finished. Returns the seconds it took."""
        msg = BackMsg()
        msg.rerun_script.query_string = query_string
        msg.rerun_script.page_name = page
        for state in widgets:
            msg.rerun_script.widget_states.widgets.append(state)
        self.alerts, self.waited = [], 0.0  # what the page said; when it last said "Waiting"
        self.texts = []  # its markdown
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        deadline = start + timeout
        while time.perf_counter() < deadline:
            raw = await asyncio.wait_for(self.ws.recv(), deadline - time.perf_counter())
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                what = element.WhichOneof("type")
                if what == "button":
                    self.buttons[element.button.id.rsplit("-", 1)[-1]] = element.button.id
                elif what == "alert":
                    self.alerts.append(element.alert.body)
                elif what == "markdown":
                    self.texts.append(element.markdown.body)
                elif what == "progress" and element.progress.text.startswith("Waiting"):
                    self.waited = time.perf_counter() - start
            if kind == "script_finished" and fwd.script_finished in (
                ForwardMsg.FINISHED_SUCCESSFULLY,
                ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
            ):
                return time.perf_counter() - start
        raise TimeoutError(f"{page} did not finish in {timeout} s")

    async def close(self):
        await self.ws.close()


def trigger(widget_id):
    msg = BackMsg()
    state = msg.rerun_script.widget_states.widgets.add()
    state.id = widget_id
    state.trigger_value = True
    return state


async def open_link(base, page, k):
    """Open the k-th link of ``page`` (and press Train on Watch a head learn), then close."""
    client = Client(base)
    await client.connect()
    q = urlencode(query(page, k))
    await client.rerun(page, q)
    if page == "Watch_a_head_learn":
        await client.rerun(page, q, [trigger(client.buttons["gpt_train"])])
    await client.close()


async def innocent_changes(base, count, stop):
    """An innocent student on Step by step at classroom size: change d_k, again and again;
    the seconds of each change (up to ``count``, or until ``stop`` is set)."""
    client = Client(base)
    await client.connect()
    q = {"tokens": "the cat sat on the mat", "d_model": 8, "d_k": 4}
    await client.rerun("Step_by_step", urlencode(q))
    times = []
    for k in range(count):
        if stop is not None and stop.is_set():
            break
        q["d_k"] = 2 + k % 3
        times.append(await client.rerun("Step_by_step", urlencode(q)))
    await client.close()
    return times


def summary(times):
    if not times:
        return "no changes"
    p = np.percentile(times, [50, 95])
    return f"p50 {p[0]:.2f} s, p95 {p[1]:.2f} s, max {max(times):.2f} s ({len(times)} changes)"


async def page_run(base, port, page, links, at_once, innocent):
    rss = []
    for k in range(links):
        await open_link(base, page, k)
        rss.append(server_rss_mb(port))
        print(f"  {page} link {k + 1:3d} (one after another): {rss[-1]:6.0f} MB", flush=True)
    half = rss[len(rss) // 2 :]
    growth = (half[-1] - half[0]) / max(1, len(half) - 1)
    print(
        f"{page}: {links} links one after another: {rss[-1]:.0f} MB (max {max(rss):.0f}), "
        f"growth per link over the last {len(half)}: {growth:+.1f} MB",
        flush=True,
    )
    batches = []
    alone = during = None
    for start in range(0, links, at_once):
        stop = asyncio.Event()
        heavy = [open_link(base, page, 10_000 + k) for k in range(start, start + at_once)]
        watcher = innocent_changes(base, 400, stop) if innocent and start == 0 else None
        if watcher is not None:
            alone = await innocent_changes(base, 20, None)
            task = asyncio.ensure_future(watcher)
            await asyncio.gather(*heavy)
            stop.set()
            during = await task
        else:
            await asyncio.gather(*heavy)
        batches.append(server_rss_mb(port))
        print(f"  {page} links {start + 1}-{start + at_once} at once: {batches[-1]:6.0f} MB")
    print(
        f"{page}: {links} links {at_once} at a time: {batches[-1]:.0f} MB (max {max(batches):.0f})",
        flush=True,
    )
    if alone is not None:
        print(f"{page}: an innocent change alone: {summary(alone)}")
        print(f"{page}: the same while {at_once} heavy links run: {summary(during)}", flush=True)
    return max(rss + batches)


async def run(base, port, args):
    worst = 0.0
    await innocent_changes(base, 1, None)  # the server warm: Streamlit, numpy, the home
    print(f"server after warming up: {server_rss_mb(port):.0f} MB", flush=True)
    for page in args.pages:
        largest = await page_run(base, port, page, args.links, args.at_once, args.innocent)
        worst = max(worst, largest)
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--links", type=int, default=40)
    parser.add_argument("--at-once", type=int, default=10)
    parser.add_argument("--innocent", action="store_true")
    parser.add_argument("--target-mb", type=float, default=700)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()
    args.pages = [p for p in args.pages.split(",") if p]
    with streamlit_server(root=args.root) as url:
        port = server_port(url)
        print(f"{args.root}, {time.strftime('%Y-%m-%d %H:%M')}, default session TTL", flush=True)
        worst = asyncio.run(run(url, port, args))
        final = server_rss_mb(port)
    print(
        f"largest: {worst:.0f} MB (at the end {final:.0f}); target {args.target_mb:.0f} MB: "
        + ("met" if worst <= args.target_mb else "NOT met")
    )
    return 0 if worst <= args.target_mb else 1


if __name__ == "__main__":
    sys.exit(main())
