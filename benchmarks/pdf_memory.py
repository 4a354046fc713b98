"""The class-set PDF's memory: the process that asks for two class sets of MAX_CLASS_SET, before
and after, when typst compiles in that process (as the server did) and when it compiles in a
short-lived process of its own (attnviz/exercises/pdf.py now). Prints RSS and CPU seconds.

    python benchmarks/pdf_memory.py
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONE_RUN = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from attnviz.exercises import pdf
from attnviz.exercises.exercise import make_exercise
from attnviz.exercises.worksheet import class_set_source
from attnviz.limits import MAX_CLASS_SET

def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024

def in_process(source):
    import typst
    return typst.compile(source.encode("utf-8"), ignore_system_fonts=True)

make = in_process if {inside!r} else pdf.compile_pdf
out = {{"before": rss(), "after": [], "cpu": [], "wall": []}}
for k in range(2):
    source = class_set_source([make_exercise(3, 1000 * k + s) for s in range(MAX_CLASS_SET)])
    c, t = time.process_time(), time.perf_counter()
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert make(source).startswith(b"%PDF")
    ch2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = ch2.ru_utime + ch2.ru_stime - ch.ru_utime - ch.ru_stime
    out["cpu"].append(time.process_time() - c + child)
    out["wall"].append(time.perf_counter() - t)
    out["after"].append(rss())
print(json.dumps(out))
"""


def main():
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"Two class sets of 60 asked by one process (load average {' '.join(load)}):")
    print("| typst runs | RSS before | after 1st | after 2nd | CPU s each (with the child's) |")
    print("| --- | --- | --- | --- | --- |")
    for label, inside in (("in the asking process (before)", True), ("in its own (now)", False)):
        code = ONE_RUN.format(root=str(ROOT), inside=inside)
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        r = json.loads(done.stdout)
        cpu = ", ".join(f"{c:.2f}" for c in r["cpu"])
        before, first, second = r["before"], *r["after"]
        print(f"| {label} | {before:.0f} MB | {first:.0f} MB | {second:.0f} MB | {cpu} |")


if __name__ == "__main__":
    main()
