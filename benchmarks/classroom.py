"""A class on one server: N students as websocket clients against a real `streamlit run`.

Each student (``benchmarks.student``: Streamlit's own protocol over ``/_stcore/stream``, no
browser, loopback only) has a sentence of their own (6 to 10 tokens, d_model 8, d_k 4) on Step
by step. Two phases, bounded, stopping by themselves:

  (a) together: all open the page at the same moment, then all change d_k, then the seed;
  (b) steady: the class stays, each student changing d_k or the seed at random moments, on
      average every ``--every`` s (10), for ``--minutes`` (2).

For each phase it prints p50 / p95 / max of what a student waits for (from the message to the
end of the run), the server's CPU per interaction (user + system of its process, from
/proc/PID/stat) and its memory (VmRSS) at the end. ``--against PATH`` runs the same class
against another checkout's server too (e.g. ``git worktree add --detach /tmp/base c43008f``),
one after the other, so that the two classes do not share the machine.

    python -m benchmarks.classroom [--students 30] [--steady 60] [--minutes 2] [--against PATH]

A script, never a test: its numbers depend on the machine (which here is shared: say how busy
it was when quoting them).
"""

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from benchmarks.student import Student, proc_cpu_s, proc_rss_mb
from tools.browser import server_pid, server_port, streamlit_server

ROOT = Path(__file__).resolve().parent.parent


PAGE = "Step_by_step"
WORDS = ["the", "cat", "sat", "on", "a", "mat", "while", "it", "rained", "and", "a", "dog"]


def student_query(k):
    """Student k's own link: 6 to 10 tokens (a word of their own among them), d_k 4."""
    n = 6 + k % 5
    words = [WORDS[(k + i) % len(WORDS)] for i in range(n - 1)] + [f"s{k}"]
    return {"tokens": " ".join(words), "d_k": "4", "seed": str(k)}


def summary(name, waits, cpu, pid):
    """A line of the table: p50 / p95 / max wait, CPU per interaction, RSS."""
    waits = sorted(waits)
    p95 = waits[min(len(waits) - 1, round(0.95 * (len(waits) - 1)))]
    return (
        f"{name:<34}{len(waits):>6}{statistics.median(waits):>8.2f}{p95:>8.2f}{waits[-1]:>8.2f}"
        f"{cpu / len(waits) * 1000:>10.0f}{proc_rss_mb(pid):>9.0f}"
    )


async def together(students, action):
    """Every student's ``action`` at once; (waits, server CPU s)."""
    return await asyncio.gather(*(action(s) for s in students))


async def steady(students, minutes, every, rng):
    """Each student changes something at random moments (on average every ``every`` s) until
    ``minutes`` are over; the waits."""
    waits, end = [], time.monotonic() + 60 * minutes

    async def one(k, s):
        d_k, seed = 4, 1000 + k
        while True:
            await asyncio.sleep(rng.expovariate(1 / every))
            if time.monotonic() > end:
                return
            if rng.random() < 0.5:
                d_k = 3 if d_k == 4 else 4
                waits.append(await s.set_int("attnviz_d_k", d_k))
            else:
                seed += 1
                waits.append(await s.set_int("attnviz_seed", seed))

    await asyncio.gather(*(one(k, s) for k, s in enumerate(students)))
    return waits


async def run_class(url, pid, args, label):
    rng = random.Random(0)
    rows = []
    students = [Student(url, PAGE, student_query(k)) for k in range(args.students)]
    for s in students:
        await s.__aenter__()
    try:
        phases = [
            ("open", lambda s: s.open()),
            ("change d_k", lambda s: s.set_int("attnviz_d_k", 3)),
            ("change the seed", lambda s: s.set_int("attnviz_seed", 999)),
        ]
        for name, action in phases if args.students else []:
            cpu = proc_cpu_s(pid)
            waits = await together(students, action)
            await asyncio.sleep(0.5)
            rows.append(
                summary(f"{label}: {args.students} {name}", waits, proc_cpu_s(pid) - cpu, pid)
            )
            print(rows[-1], flush=True)
    finally:
        for s in students:
            await s.__aexit__()
    if args.steady:
        students = [Student(url, PAGE, student_query(100 + k)) for k in range(args.steady)]
        for s in students:
            await s.__aenter__()
        try:
            for s in students:  # the class arrives over a minute, as a class does
                await s.open()
            cpu = proc_cpu_s(pid)
            waits = await steady(students, args.minutes, args.every, rng)
            name = f"{label}: steady {args.steady}, every {args.every:g} s"
            rows.append(summary(name, waits, proc_cpu_s(pid) - cpu, pid))
            print(rows[-1], flush=True)
        finally:
            for s in students:
                await s.__aexit__()
    return rows


async def warm(url):
    """One student before the class: the server's imports and first run are not the class's."""
    async with Student(url, PAGE, student_query(-1)) as s:
        await s.open()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30, help="phase (a), 0 to skip it")
    parser.add_argument("--steady", type=int, default=60, help="phase (b): 0 to skip it")
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--every", type=float, default=10.0, help="mean seconds between changes")
    parser.add_argument("--against", nargs="*", default=[])
    args = parser.parse_args()
    head = f"{'phase':<34}{'n':>6}{'p50 s':>8}{'p95 s':>8}{'max s':>8}{'CPU ms':>10}{'RSS MB':>9}"
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {PAGE}\n{head}", flush=True)
    rows = []
    for label, root in [("this", ROOT)] + [(Path(p).name, Path(p)) for p in args.against]:
        with streamlit_server(root=root) as url:
            pid = server_pid(server_port(url))
            asyncio.run(warm(url))
            rows += asyncio.run(run_class(url, pid, args, label))
    print(f"\n{head}\n" + "\n".join(rows))


if __name__ == "__main__":
    main()
