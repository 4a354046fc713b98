"""How fast each page reruns, and how many bytes of chart data it sends, against a bare floor.

For every page at n = 6 (the default sentence), 64, 256 and 512 tokens, measured side by side
in one run (the machine is shared and noisy, so compare the ratios, not the absolute times):

  * page s    the server-side time of a rerun (AppTest), settings unchanged, caches warm;
  * floor s   the same for a bare page that only draws the same heatmaps (the very figures the
              page drew, same count and sizes) with nothing else: no sidebar, text or tables;
  * page/floor;
  * KB        the bytes of chart data the page sends (the sum of its Plotly specs).

    python -m benchmarks.app [--sizes 6 64 256 512] [--repeats 5] [--pages Step_by_step ...]

Before/after: ``--against PATH`` times this checkout and another one (e.g. an older commit's
worktree) side by side. Each tree is measured in a process of its own, started with cwd and
``sys.path`` on that tree so that it imports its own attnviz and runs its own pages; the parent
only sends commands. The rounds alternate between the two trees (and which one goes first), so a
busy neighbour slows both alike. Columns: each tree's median page rerun and their ratio
(this/other); the median of the round-by-round ratios (paired: each round's two reruns ran one
after the other, so this cancels slow drifts in load); the ratio of the two trees' median floors
(near 1 when both draw the same figures and the load was fair to both: how far it strays shows
the noise); each tree's KB of chart data.

    git worktree add --detach /tmp/attnviz-before a8f1c50
    python -m benchmarks.app --against /tmp/attnviz-before --sizes 6 64 512 --repeats 5

``--pages`` matches path fragments (``app.py`` is the home page, ``Step_by_step`` a page).

A script, never a test: its numbers depend on the machine.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent  # the tree whose pages run; --root changes it

FLOOR = """
import json
import plotly.io
import streamlit as st

for k, spec in enumerate(json.loads(open(SPECS).read())):
    st.plotly_chart(plotly.io.from_json(spec), key=f"floor{k}")
"""


def query(n):
    return {} if n == 6 else {"n": str(n)}


def script_path(script):
    """``script`` (app.py or app_pages/<path>.py) in the tree ROOT; in a checkout from before
    app_pages/, the page's pages/N_<path>.py. A page runs alone (it draws its own frame)."""
    path = ROOT / script
    if path.exists() or not script.startswith("app_pages/"):
        return path
    return next((ROOT / "pages").glob(f"*_{Path(script).name}"))


def page_app(script, n):
    at = AppTest.from_file(str(script_path(script)), default_timeout=600)
    for name, value in query(n).items():
        at.query_params[name] = value
    return at


def floor_app(specs):
    """A bare page drawing the figures ``specs`` (JSON strings), read from a file per rerun."""
    path = Path(tempfile.mkstemp(suffix=".json")[1])
    path.write_text(json.dumps(specs))
    return AppTest.from_string(f"SPECS = {str(path)!r}\n{FLOOR}", default_timeout=600)


def timed_rerun(at):
    start = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return elapsed


def chart_specs(at):
    """The Plotly spec (JSON text) of every chart a run drew."""
    return [el.proto.spec for el in at.get("plotly_chart")]


class Cell:
    """One page at one n, ready to rerun: the page and its bare floor, first runs done."""

    def __init__(self, script, n):
        self.page = page_app(script, n)
        self.page.run()  # first run fills the caches
        specs = chart_specs(self.page)
        self.sent = sum(len(spec) for spec in specs)
        self.floor = floor_app(specs)
        self.floor.run()

    def round(self):
        """(page s, floor s) of one rerun each."""
        return timed_rerun(self.page), timed_rerun(self.floor)


def scripts_of(root, pages):
    """app.py and app_pages/*.py of ``root`` (each run alone), only those matching ``pages``
    if given."""
    found = sorted((root / "app_pages").glob("*.py"))
    scripts = ["app.py"] + [f"app_pages/{p.name}" for p in found if p.name != "Home.py"]
    return [s for s in scripts if any(p in s for p in pages)] if pages else scripts


def measure(args):
    """This tree alone: page, floor and their ratio, every cell in this process."""
    print(f"{time.strftime('%Y-%m-%d')}, median of {args.repeats} reruns, caches warm")
    print(f"{'page':<32}{'n':>5}{'page s':>9}{'floor s':>9}{'page/floor':>12}{'KB':>9}")
    for script in scripts_of(ROOT, args.pages):
        for n in args.sizes:
            cell = Cell(script, n)
            page_times, floor_times = [], []
            for _ in range(args.repeats):  # interleaved, so drifts in load hit both
                p, f = cell.round()
                page_times.append(p)
                floor_times.append(f)
            p, f = statistics.median(page_times), statistics.median(floor_times)
            name = Path(script).stem
            print(f"{name:<32}{n:>5}{p:>9.3f}{f:>9.3f}{p / f:>12.2f}{cell.sent / 1024:>9.0f}")


def worker():
    """Serve one tree's cells to ``compare``: read commands on stdin, answer on stdout.

    ``cell SCRIPT N`` sets up a cell and answers ``ok KB``; ``round`` answers ``ok PAGE FLOOR``
    (seconds). Other output of the pages goes to stderr, so stdout carries only answers.
    """
    answers, sys.stdout = sys.stdout, sys.stderr
    cell = None
    for line in sys.stdin:
        command, *rest = line.split()
        if command == "cell":
            cell = Cell(rest[0], int(rest[1]))
            imported = Path(sys.modules["attnviz"].__file__).resolve()
            if not imported.is_relative_to(ROOT):
                raise RuntimeError(f"{ROOT}: its pages imported {imported}, another tree's")
            print(f"ok {cell.sent}", file=answers, flush=True)
        elif command == "round":
            p, f = cell.round()
            print(f"ok {p!r} {f!r}", file=answers, flush=True)


class Tree:
    """A worker process measuring the checkout at ``root`` with its own attnviz."""

    def __init__(self, root):
        self.root = root
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", "--root", str(root)],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().split()
        while answer and answer[0] != "ok":  # anything else printed to the real stdout
            answer = self.proc.stdout.readline().split()
        if not answer:
            raise RuntimeError(f"{self.root}: {command!r} failed (see the traceback above)")
        return [float(x) for x in answer[1:]]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def commit(root):
    """The short commit id of the checkout at ``root`` (with + if it has changes), or "?"."""

    def git(*words):
        done = subprocess.run(["git", "-C", str(root), *words], capture_output=True, text=True)
        return done.stdout.strip()

    try:
        head, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain")
    except OSError:
        return "?"
    return (head or "?") + ("+" if dirty else "")


def compare(args):
    """This tree against ``args.against``, rounds alternating between the two processes."""
    other_root = Path(args.against).resolve()
    print(f"{time.strftime('%Y-%m-%d')}, median of {args.repeats} reruns each, caches warm")
    for name, root in (("this", ROOT), ("other", other_root)):
        print(f"{name + ':':<7}{root} at {commit(root)}")
    head = f"{'page':<24}{'n':>5}{'this s':>8}{'other s':>9}{'this/other':>12}{'paired':>8}"
    print(f"{head}{'floor ratio':>13}{'this KB':>9}{'other KB':>10}")
    trees = [Tree(ROOT), Tree(other_root)]
    try:
        for script in scripts_of(ROOT, args.pages):
            for n in args.sizes:
                sent = [tree.ask(f"cell {script} {n}")[0] for tree in trees]
                times = [[], []]  # per tree: [(page s, floor s)]
                for round_ in range(args.repeats):
                    order = (0, 1) if round_ % 2 == 0 else (1, 0)
                    for k in order:
                        times[k].append(trees[k].ask("round"))
                page = [statistics.median(t[0] for t in ts) for ts in times]
                floor = [statistics.median(t[1] for t in ts) for ts in times]
                paired = statistics.median(a[0] / b[0] for a, b in zip(*times, strict=True))
                print(
                    f"{Path(script).stem:<24}{n:>5}{page[0]:>8.3f}{page[1]:>9.3f}"
                    f"{page[0] / page[1]:>12.2f}{paired:>8.2f}{floor[0] / floor[1]:>13.2f}"
                    f"{sent[0] / 1024:>9.0f}{sent[1] / 1024:>10.0f}",
                    flush=True,
                )
    finally:
        for tree in trees:
            tree.close()


def main():
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 64, 256, 512])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pages", nargs="*", help="page paths, e.g. Step_by_step (default all)")
    parser.add_argument("--against", metavar="PATH", help="another checkout to compare with")
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)  # a worker's tree
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ROOT = (args.root or ROOT).resolve()
    sys.path.insert(0, str(ROOT))  # the pages import this tree's attnviz
    if args.worker:
        worker()
    elif args.against:
        compare(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
