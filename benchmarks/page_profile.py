"""Where a page's server time goes: cProfile of its script thread over N changes of a widget.

AppTest runs the page in a thread of its own, which a profiler started in the main thread does
not see: this wraps Streamlit's script-running function so that the profiler runs inside the
script thread, for the runs after the first (whose imports and caches are not a change). Each
of the N sessions has a sentence of its own (7 to 10 tokens, d_model 8, d_k 4) and changes
d_k to 3 once. Prints the script thread's CPU per change and the profile.

    python -m benchmarks.page_profile [--page Step_by_step.py] [--sort tottime] [--n 10]
    python -m benchmarks.page_profile --floor   # the bare floor page of step_cpu.py
    python -m benchmarks.page_profile --cpu-only --root /tmp/main   # no profiler, another tree

A script, never a test. The profile counts the script thread's CPU time (not the wall clock,
which a loaded machine inflates); profiling inflates the times, most for code of many small
calls (Plotly's validation): compare runs of this script only, and times with ``--cpu-only``.
"""

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path

from streamlit.runtime.scriptrunner import script_runner
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent


WORDS = ["the", "cat", "sat", "on", "a", "mat", "while", "it", "rained"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", default="Step_by_step.py")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--lines", type=int, default=60)
    parser.add_argument("--floor", action="store_true", help="profile step_cpu.py's floor")
    parser.add_argument("--cpu-only", action="store_true", help="no profiler: the CPU alone")
    parser.add_argument("--root", type=Path, default=ROOT, help="another checkout's pages")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))  # its attnviz, not this checkout's
    script = args.root / "app_pages" / args.page  # run alone: the page draws its own frame
    if args.floor:
        from benchmarks.step_cpu import FLOOR

        script = Path(tempfile.mkdtemp()) / "floor.py"
        script.write_text(FLOOR)
    profiler, state = cProfile.Profile(time.thread_time), {"on": False, "cpu": 0.0}
    run_script = script_runner.exec_func_with_error_handling

    def profiled(func, ctx):
        if not state["on"]:
            return run_script(func, ctx)
        start = time.thread_time()
        if not args.cpu_only:
            profiler.enable()
        try:
            return run_script(func, ctx)
        finally:
            profiler.disable()
            state["cpu"] += time.thread_time() - start

    script_runner.exec_func_with_error_handling = profiled
    apps = []
    for k in range(args.n):
        at = AppTest.from_file(str(script), default_timeout=600)
        at.query_params["tokens"] = " ".join(WORDS[: 6 + k % 4]) + f" w{k}"
        at.run()
        apps.append(at)
    state["on"] = True
    for at in apps:
        at.number_input(key="attnviz_d_k").set_value(3).run()
        if at.exception:
            raise RuntimeError(at.exception[0].value)
    print(f"script thread CPU per change: {state['cpu'] / args.n * 1000:.0f} ms")
    if args.cpu_only:
        return
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.lines)
    print(out.getvalue())


if __name__ == "__main__":
    main()
