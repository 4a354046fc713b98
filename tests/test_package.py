"""`import attnviz` is light: no threads, no /proc scans, no Streamlit or Plotly, at import."""

import subprocess
import sys

from tests.helpers import ROOT

PROBE = """
import sys, threading
opened = []
sys.addaudithook(lambda event, args: event == "open" and opened.append(str(args[0])))
before = threading.active_count()
import attnviz
after = threading.active_count()
print(before, after)
print([p for p in opened if p.startswith("/proc")])
print(sorted(m for m in sys.modules if m.split(".")[0] in {"streamlit", "plotly", "pandas"}))
"""


def test_import_starts_no_thread_and_reads_no_proc_file():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    before, after = (int(x) for x in out[0].split())
    assert after == before
    assert out[1] == "[]", out[1]  # no /proc/self/maps scan, no CPU-affinity look-ups
    assert out[2] == "[]", out[2]  # the math needs neither Streamlit, Plotly nor pandas


def test_the_package_holds_no_speed_machinery():
    # The core is the reference: no thread pool, no memory pool of our own (mapped with the mmap
    # module, as the old one was), no BLAS tuning. Reading a model file through its library's
    # own memory map (gguf's reader) is loading, not the lesson's math.
    package = ROOT / "attnviz"
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for word in (
            "sched_setaffinity",
            "threadpoolctl",
            "openblas_set_num_threads",
            "import mmap",
            "mmap.mmap(",
        ):
            assert word not in text, f"{path.relative_to(ROOT)} uses {word}"
