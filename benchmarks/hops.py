"""How far a setting travels: a call profiler over one AppTest run of Step by step.

    python -m benchmarks.hops                      # this checkout
    python -m benchmarks.hops --root /tmp/c5c35d3  # another checkout (its attnviz and pages)

One run of ``app_pages/Step_by_step.py`` with ``d_k=7`` and 4 tokens, its imports warmed by a run
with other settings and every cache of the server's store emptied before it (caches cold).
``sys.setprofile`` in the script's thread records every call of a Python function; a project
module is one of ``attnviz`` or the page script. Prints the project modules entered, the
distinct module -> module edges and the calls between modules (the busiest edges first), and
the walk to the drawn S' heatmap: the project modules on the call stack when the page hands the
chart named ``S_scaled`` to ``st.plotly_chart``, each hop a change of module. A script, never a
test: the figures are counts, not times.
"""

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "app_pages/Step_by_step.py"  # run alone, as before the shell (pages/1_Step_by_step.py)
OLD_PAGE = "pages/1_Step_by_step.py"  # a checkout from before app_pages/
QUERY = {"tokens": "the cat sat on", "d_k": "7"}  # 4 tokens, d_k = 7
WARM = {"tokens": "one two three", "d_k": "3"}  # imports warmed with other settings


def module_of(frame):
    """The project module of ``frame`` ("app_pages/Step_by_step" for the page script), or None."""
    if frame.f_code.co_filename.endswith((PAGE, OLD_PAGE)):
        return PAGE[:-3]
    name = frame.f_globals.get("__name__", "")
    return name if name == "attnviz" or name.startswith("attnviz.") else None


def walk_of(frame):
    """[(module, function)] of the project frames on ``frame``'s stack, outermost first, one
    entry per change of module."""
    stack = []
    while frame is not None:
        module = module_of(frame)
        if module is not None:
            stack.append((module, frame.f_code.co_name))
        frame = frame.f_back
    walk = []
    for module, function in reversed(stack):
        if not walk or walk[-1][0] != module:
            walk.append((module, function))
    return walk


def profile_run(root):
    """(modules entered, Counter of (caller, callee) calls, the walk to the S' heatmap)."""
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.testing.v1 import AppTest

    try:
        from attnviz.serve.store import clear_shared_caches
    except ImportError:  # a checkout from before attnviz/serve/
        from attnviz.serve.store import clear_shared_caches

    entered, calls, walk, state = set(), Counter(), [], {"on": False}

    def tracer(frame, event, arg):
        if event != "call":
            return
        callee = module_of(frame)
        if callee is None:
            return
        entered.add(callee)
        caller = None if frame.f_back is None else module_of(frame.f_back)
        if caller is not None and caller != callee:
            calls[caller, callee] += 1

    def plotly_watch(frame, event, arg):
        drawing = event == "call" and frame.f_code.co_name == "plotly_chart"
        if drawing and not walk and frame.f_locals.get("key") == "S_scaled":
            walk.extend(walk_of(frame))
        tracer(frame, event, arg)

    run_script = script_runner.exec_func_with_error_handling

    def profiled(func, ctx):
        if not state["on"]:
            return run_script(func, ctx)
        sys.setprofile(plotly_watch)
        try:
            return run_script(func, ctx)
        finally:
            sys.setprofile(None)

    script_runner.exec_func_with_error_handling = profiled
    for query, on in ((WARM, False), (QUERY, True)):
        page = root / PAGE if (root / PAGE).exists() else root / OLD_PAGE
        at = AppTest.from_file(str(page), default_timeout=600)
        for name, value in query.items():
            at.query_params[name] = value
        clear_shared_caches()
        state["on"] = on
        at.run()
        if at.exception:
            raise RuntimeError(at.exception[0].value)
    return entered, calls, walk


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="another checkout to measure")
    parser.add_argument("--edges", type=int, default=15, help="busiest edges shown")
    args = parser.parse_args()
    root = args.root.resolve()
    if root != ROOT:
        sys.path.insert(0, str(root))  # that checkout's attnviz, not this one's
    entered, calls, walk = profile_run(root)
    print(f"{root}: {PAGE}, d_k = 7, 4 tokens, imports warmed, caches cold")
    print(f"project modules entered: {len(entered)}")
    print(f"distinct module -> module call edges: {len(calls)}")
    print(f"calls between modules: {sum(calls.values())}")
    for (caller, callee), count in calls.most_common(args.edges):
        print(f"  {count:6d}  {caller} -> {callee}")
    print(f"the walk to the drawn S' heatmap: {len(walk) - 1} hops through {len(walk)} modules")
    for module, function in walk:
        print(f"  {module}.{function}")
    print("modules entered:", ", ".join(sorted(entered)))


if __name__ == "__main__":
    main()
