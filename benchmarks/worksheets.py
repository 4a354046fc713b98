"""Worksheets as PDF: time and size of one worksheet per level, and of class sets up to the cap.

From the repository's root:  python -m benchmarks.worksheets [--counts 1 10 30 60] [--repeats 3]

Each figure is the best of ``--repeats`` runs of the whole download as the page makes it on a
click (``worksheet_pdf`` / ``class_set_pdf``: draw the exercises, write the typst source,
compile it with the ``typst`` package and its own fonts), as wall-clock seconds and as CPU
seconds of this process (typst compiles on several threads, so CPU can exceed wall time). The
first compile of a process loads typst's fonts; it is timed apart ("first call"). Level 5 is
the largest exercise (up to 24 blanks), so class sets are timed at level 5.
"""

import argparse
import io
import time

import pypdf  # requirements-dev.txt

from attnviz.exercises import LEVELS
from attnviz.exercises.pdf import class_set_pdf, worksheet_pdf
from attnviz.limits import MAX_CLASS_SET


def page_count(pdf):
    return len(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def timed(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def best(fn, args, repeats):
    runs = [timed(fn, *args) for _ in range(repeats)]
    out = runs[0][0]
    return out, min(r[1] for r in runs), min(r[2] for r in runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 10, 30, MAX_CLASS_SET])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    _, wall, cpu = timed(worksheet_pdf, 1, 0)
    print(f"first call (fonts load): {wall:.3f} s wall, {cpu:.3f} s CPU\n")
    print("| worksheet | pages | wall s | CPU s | KB |")
    print("| --- | --- | --- | --- | --- |")
    for level in LEVELS:
        pdf, wall, cpu = best(worksheet_pdf, (level, 4, level in (2, 4, 5)), args.repeats)
        pages = page_count(pdf)
        print(
            f"| level {level}, seed 4 | {pages} | {wall:.3f} | {cpu:.3f} | {len(pdf) / 1e3:.0f} |"
        )
    print("\n| class set (level 5) | pages | wall s | CPU s | MB |")
    print("| --- | --- | --- | --- | --- |")
    for count in args.counts:
        pdf, wall, cpu = best(class_set_pdf, (5, 0, count), args.repeats)
        pages = page_count(pdf)
        print(f"| {count} students | {pages} | {wall:.2f} | {cpu:.2f} | {len(pdf) / 1e6:.2f} |")


if __name__ == "__main__":
    main()
