"""How fast each page reruns, and how many bytes of chart data it sends, against a bare floor.

For every page at n = 6 (the default sentence), 64, 256 and 512 tokens, measured side by side
in one run (the machine is shared and noisy, so compare the ratios, not the absolute times):

  * page s    the server-side time of a rerun (AppTest), settings unchanged, caches warm;
  * floor s   the same for a bare page that only draws the same heatmaps (the very figures the
              page drew, same count and sizes) with nothing else: no sidebar, text or tables;
  * page/floor;
  * KB        the bytes of chart data the page sends (the sum of its Plotly specs).

    python benchmarks/app.py [--sizes 6 64 256 512] [--repeats 5] [--pages Step_by_step ...]
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FLOOR = """
import json
import plotly.io
import streamlit as st

for k, spec in enumerate(json.loads(open(SPECS).read())):
    st.plotly_chart(plotly.io.from_json(spec), key=f"floor{k}")
"""


def query(n):
    return {} if n == 6 else {"n": str(n)}


def page_app(script, n):
    at = AppTest.from_file(str(ROOT / script), default_timeout=600)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 64, 256, 512])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pages", nargs="*", help="page paths, e.g. Step_by_step (default all)")
    args = parser.parse_args()
    scripts = ["app.py"] + [f"pages/{p.name}" for p in sorted((ROOT / "pages").glob("*.py"))]
    if args.pages:
        scripts = [s for s in scripts if any(p in s for p in args.pages)]
    print(f"{time.strftime('%Y-%m-%d')}, median of {args.repeats} reruns, caches warm")
    print(f"{'page':<32}{'n':>5}{'page s':>9}{'floor s':>9}{'page/floor':>12}{'KB':>9}")
    for script in scripts:
        for n in args.sizes:
            page = page_app(script, n)
            page.run()  # first run fills the caches
            specs = chart_specs(page)
            sent = sum(len(spec) for spec in specs)
            floor = floor_app(specs)
            floor.run()
            page_times, floor_times = [], []
            for _ in range(args.repeats):  # interleaved, so drifts in load hit both
                page_times.append(timed_rerun(page))
                floor_times.append(timed_rerun(floor))
            p, f = statistics.median(page_times), statistics.median(floor_times)
            name = Path(script).stem
            print(f"{name:<32}{n:>5}{p:>9.3f}{f:>9.3f}{p / f:>12.2f}{sent / 1024:>9.0f}")


if __name__ == "__main__":
    main()
