"""Server CPU of the step page per interaction, against a bare floor, on real `streamlit run`s.

The floor is a bare page (its own server, an ``app.py`` in a temporary folder) with the step
page's sidebar widgets, the same 11 heatmaps at the same sizes (plain dict figures, the numbers
printed in the cells), 10 formulas and 12 paragraphs and nothing else: what any page showing
this much costs the server. One student (``benchmarks.student``, a websocket client: no browser
on the machine's cores) at a time; the rounds alternate between the servers (and which goes
first), so a busy neighbour slows all alike. Each round a new tab opens the page (``open``),
then changes d_k (``change``); the server's CPU (user + system, /proc/PID/stat) is read before
and after each, 0.3 s after its run finished, so what the server does after the last message
counts too. Classroom sizes: 6 to 10 tokens, d_model 8, d_k 4 (3 on a change).

    python -m benchmarks.step_cpu [--rounds 20] [--page Step_by_step ...] [--against PATH ...]

``--change KEY=VALUE`` makes the change another widget's instead (a radio or a selectbox, its
option as formatted on screen: ``--page Real_model --change model_head=3``; the floor still
changes its d_k), for pages that do not use d_k.

``--against`` adds other checkouts (e.g. ``git worktree add --detach /tmp/base c43008f``), each
on a server of its own. Prints each server's median wall time and mean CPU per interaction and
each page's CPU over the floor's. ``--page`` takes several pages (``Home`` is the app's home):
each is measured in rounds of its own, alternating with the floor's, against the same floor (the
step page's: a page that shows this much). A script, never a test: its numbers depend on the
machine.
"""

import argparse
import asyncio
import contextlib
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.student import RunError, Student, proc_cpu_s
from tools.browser import server_pid, server_port, streamlit_server

ROOT = Path(__file__).resolve().parent.parent


WORDS = ["the", "cat", "sat", "on", "a", "mat", "while", "it", "rained", "and", "a", "dog", "slept"]
SETTLE_S = 0.3  # after a run: what the server still does for it is counted

FLOOR = """
import numpy as np
import streamlit as st

with st.sidebar:  # the step page's sidebar widgets, under the same keys
    st.toggle("Projector mode", key="attnviz_present")
    st.header("Settings")
    st.toggle("Generate tokens t1 … tn", key="attnviz_generated")
    text = st.text_area("Sentence", "the cat sat on the mat", key="attnviz_text", height=80)
    c1, c2, c3 = st.columns(3)
    d_model = c1.number_input("d_model", 1, 512, 8, key="attnviz_d_model")
    d_k = c2.number_input("d_k", 1, 512, 4, key="attnviz_d_k")
    d_v = c3.number_input("d_v", 1, 512, 4, key="attnviz_d_v")
    seed = st.number_input("Seed", 0, 2**31 - 1, 0, key="attnviz_seed")
    st.selectbox("Embedding", ["random", "one-hot"], key="attnviz_embedding")
    st.toggle("Add positional encoding", key="attnviz_positions")
    st.radio("Mask", ["none", "causal"], key="attnviz_mask", horizontal=True)
    st.toggle("Scale by 1/√d_k", True, key="attnviz_scale")
    st.number_input("Softmax temperature T", 0.01, 100.0, 1.0, key="attnviz_temperature")
n = len(text.split())
rng = np.random.default_rng(seed)
shapes = [(n, d_model)] + [(d_model, d_k)] * 2 + [(d_model, d_v)] + [(n, d_k)] * 2
shapes += [(n, d_v), (n, n), (n, n), (n, n), (n, d_v)]
for k, shape in enumerate(shapes):  # 11 heatmaps, numbers in the cells
    z = rng.standard_normal(shape)
    figure = {
        "data": [{"type": "heatmap", "z": z.tolist(), "text": [[f"{v:.2f}" for v in row]
                  for row in z], "texttemplate": "%{text}"}],
        "layout": {"height": 34 * shape[0] + 140, "title": {"text": f"matrix {k}"}},
    }
    st.plotly_chart(figure, key=f"floor{k}")
for k in range(10):
    st.latex(rf"A_{{{k}}} = \\mathrm{{softmax}}(Q K^T / \\sqrt{{{d_k}}})")
for k in range(12):
    st.markdown(f"Paragraph {k}: {n} tokens, d_model = {d_model}, d_k = {d_k}, seed {seed}.")
"""


def query(r):
    """A student's own link: 6 to 10 tokens, d_model 8, d_k 4."""
    n = 6 + r % 5
    return {"tokens": " ".join(WORDS[(r + i) % len(WORDS)] for i in range(n)), "d_k": "4"}


async def interaction(url, page, q, pid, change=None):
    """(open s, open CPU s, change s, change CPU s) of one new tab on ``url``; the change is
    d_k to 3, or ``change`` (key, formatted option) if given."""
    async with Student(url, page, q) as s:
        cpu = proc_cpu_s(pid)
        opened = await s.open()
        await asyncio.sleep(SETTLE_S)
        open_cpu = proc_cpu_s(pid) - cpu
        cpu = proc_cpu_s(pid)
        if change is None:
            changed = await s.set_int("attnviz_d_k", 3)
        else:
            changed = await s.set_string(*change)
        await asyncio.sleep(SETTLE_S)
        return opened, open_cpu, changed, proc_cpu_s(pid) - cpu


def page_rounds(page, rounds, servers, rows, change=None):
    """``rounds`` rounds of ``page`` on every server (the floor shows its one page), in
    ``rows[page, server]``; round -1 warms every server (imports, caches)."""
    names = list(servers)
    for r in range(-1, rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            url, pid = servers[name]
            shown = "" if name == "floor" or page == "Home" else page
            own = None if name == "floor" else change
            result = asyncio.run(interaction(url, shown, query(r), pid, own))
            if r >= 0:
                rows[page, name].append(result)
        if r >= 0 and (r + 1) % 5 == 0:
            print(f"{page}: round {r + 1} of {rounds}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--page", nargs="+", default=["Step_by_step"], help="Home is the app")
    parser.add_argument("--against", nargs="*", default=[])
    parser.add_argument("--change", help="KEY=VALUE: a radio or selectbox, not d_k")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as floor_root, contextlib.ExitStack() as stack:
        (Path(floor_root) / "app.py").write_text(FLOOR)
        # the floor runs with this checkout's server settings (runner.postScriptGC among them)
        shutil.copytree(ROOT / ".streamlit", Path(floor_root) / ".streamlit")
        trees = {"floor": Path(floor_root), "this checkout": ROOT}
        trees |= {str(other): Path(other) for other in args.against}
        servers = {}
        for name, root in trees.items():
            url = stack.enter_context(streamlit_server(root=root))
            servers[name] = (url, server_pid(server_port(url)))
        names = list(servers)
        rows = {(page, name): [] for page in args.page for name in names}
        for page in list(args.page):  # each page's rounds alternate with the floor's
            try:
                change = args.change.split("=", 1) if args.change else None
                page_rounds(page, args.rounds, servers, rows, change)
            except (KeyError, RunError) as exc:  # no d_k on the page, or the run failed
                print(f"{page}: not measured ({type(exc).__name__}: {exc})", flush=True)
                args.page.remove(page)
    what = f", change {args.change}" if args.change else ""
    print(f"\n{time.strftime('%Y-%m-%d %H:%M')}, {args.rounds} rounds{what}")
    head = f"{'page':<22}{'server':<22}{'open s':>8}{'open CPU':>10}{'change s':>10}"
    print(head + f"{'change CPU':>12}{'open/floor':>12}{'change/floor':>14}")
    for page in args.page:
        floor = [statistics.mean(t[k] for t in rows[page, "floor"]) for k in (1, 3)]
        for name in names:
            results = rows[page, name]
            wall = [statistics.median(t[k] for t in results) for k in (0, 2)]
            cpu = [statistics.mean(t[k] for t in results) for k in (1, 3)]
            print(
                f"{page[:21]:<22}{name[-21:]:<22}{wall[0]:>8.3f}{cpu[0] * 1000:>8.0f}ms"
                f"{wall[1]:>10.3f}{cpu[1] * 1000:>10.0f}ms{cpu[0] / floor[0]:>12.2f}"
                f"{cpu[1] / floor[1]:>14.2f}"
            )


if __name__ == "__main__":
    main()
