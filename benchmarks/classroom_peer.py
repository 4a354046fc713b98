"""A peer-instruction question in a Classroom room on one server: a lecturer and N phones as
websocket clients (benchmarks/classroom_room.py's ``Tab``: Streamlit's own protocol, loopback,
drawing nothing).

The lecturer opens the room on a deck's slide ``Classroom?question=shape&rounds=2`` and moves
on with the deck bar's Next alone (a clicker's →); the phones join a few at a time and:

  round 1: each taps an answer; the lecturer ends the round; every phone shows it ended;
  the discussion (no countdown); round 2: every phone shows its first answer, taps again;
  the lecturer ends round 2 and reveals: for each phone the time until its page shows the
  answer (p50 / p95 / max) and the server's CPU for that reveal; then the twin: every phone
  answers it, the lecturer reveals it (timed the same way).

The server's CPU over the whole question divided by the phones is the CPU per phone.

    python -m benchmarks.classroom_peer [--students 30,60] [--timeout 180]

A script, never a test: its numbers depend on the machine (shared here: it prints how busy).
"""

import argparse
import asyncio
import os
import random
import time
from urllib.parse import urlencode

from attnviz.links.deck import slide, slide_query
from benchmarks.classroom_room import (
    ANSWER_SHOWN,
    ARRIVING,
    StalledError,
    Tab,
    quantiles,
)
from benchmarks.student import proc_cpu_s
from tools.browser import server_pid, server_port, streamlit_server

SLIDES = (slide("Home"), slide("Classroom", question="shape", rounds="2"), slide("Why_scale", 1))


def said(tab, before, part):
    """Whether ``tab`` received a text holding ``part`` after its ``before``-th text."""
    return any(part in text for _, text in tab.texts[before:])


async def everyone(phones, part, what):
    """Wait until every phone has shown a text holding ``part`` (since the last mark)."""
    await asyncio.gather(
        *(p.until(lambda p=p: said(p, p.mark, part), what) for p in phones),
    )


def mark(tabs):
    for tab in tabs:
        tab.mark = len(tab.texts)


async def step(lecturer, label_after):
    """The lecturer's Next (→); waits until its page shows the next step's label."""
    mark([lecturer])
    await lecturer.run(tap="step_next")
    await lecturer.until(lambda: said(lecturer, lecturer.mark, label_after), label_after)


async def answer_all(phones, what):
    options = sorted(k for k in phones[0].widgets if k.startswith("cls_opt_"))
    await asyncio.gather(
        *(p.run_until(what, random.choice(options), None, "Your answer") for p in phones)
    )


async def timed_reveal(lecturer, phones, pid, label_after):
    """The lecturer reveals: (each phone's wait in s, the server's CPU s)."""
    mark(phones)
    cpu0, t0 = proc_cpu_s(pid), time.perf_counter()
    await step(lecturer, label_after)
    await everyone(phones, ANSWER_SHOWN, repr(ANSWER_SHOWN))
    waits = [next(t for t, text in p.texts[p.mark :] if ANSWER_SHOWN in text) - t0 for p in phones]
    return waits, proc_cpu_s(pid) - cpu0


async def question(url, pid, n, timeout):
    query = urlencode(slide_query(SLIDES, 1))
    async with Tab(url, "the lecturer", query, timeout) as lecturer:
        await lecturer.run_until("the Open-a-room button", widget="cls_open")
        before = await lecturer.run_until("the room's code", tap="cls_open", starts="# ")
        code = lecturer.shown(before, "# ")[1][2:].strip()
        phones = [Tab(url, f"phone {k}", f"room={code}", timeout) for k in range(n)]
        for phone in phones:
            await phone.__aenter__()
        try:
            cpu_start = proc_cpu_s(pid)
            for k in range(0, n, ARRIVING):
                await asyncio.gather(
                    *(
                        p.run_until("the question", starts="Tap your answer")
                        for p in phones[k : k + ARRIVING]
                    )
                )
            await answer_all(phones, "round 1's answer acknowledged")
            mark(phones)
            await step(lecturer, "Discuss with your neighbour")  # round 1 ended
            await everyone(phones, "Round 1 has ended", "round 1 ended")
            mark(phones)
            await step(lecturer, "Round 2")  # the discussion
            await everyone(phones, "Discuss with your neighbour", "the discussion")
            mark(phones)
            await step(lecturer, "End round 2")  # round 2
            await everyone(phones, "In round 1 you answered", "round 2")
            await answer_all(phones, "round 2's answer acknowledged")
            mark(phones)
            await step(lecturer, "Reveal")  # round 2 ended
            await everyone(phones, "Round 2 has ended", "round 2 ended")
            waits, reveal_cpu = await timed_reveal(lecturer, phones, pid, "Twin question")
            mark(phones)
            await step(lecturer, "Reveal the twin")
            await everyone(phones, "Tap your answer", "the twin")
            await answer_all(phones, "the twin's answer acknowledged")
            twin_waits, twin_cpu = await timed_reveal(lecturer, phones, pid, ANSWER_SHOWN)
            cpu_total = proc_cpu_s(pid) - cpu_start
            exceptions = [e for tab in (lecturer, *phones) for e in tab.exceptions]
        finally:
            for phone in phones:
                await phone.__aexit__()
    return waits, reveal_cpu, twin_waits, twin_cpu, cpu_total, exceptions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", default="60", help="class sizes, comma-separated")
    parser.add_argument("--timeout", type=float, default=180.0, help="longest wait (s)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    with streamlit_server() as url:
        pid = server_pid(server_port(url))
        for n in (int(s) for s in args.students.split(",")):
            try:
                figures = asyncio.run(question(url, pid, n, args.timeout))
            except StalledError as exc:
                print(f"{n} phones: stalled. {exc}", flush=True)
                return
            waits, reveal_cpu, twin_waits, twin_cpu, cpu_total, exceptions = figures
            print(f"{n} phones, two rounds and a twin (load average {os.getloadavg()[0]:.1f})")
            for name, w, cpu in (
                ("reveal", waits, reveal_cpu),
                ("twin's reveal", twin_waits, twin_cpu),
            ):
                p50, p95, most = quantiles(w)
                print(
                    f"  {name} on every phone: p50 {p50:.2f} s, p95 {p95:.2f} s, max {most:.2f} s;"
                    f" server CPU {cpu:.2f} s ({cpu / n * 1000:.0f} ms a phone)"
                )
            per_phone = cpu_total / n
            print(
                f"  server CPU for the whole question: {cpu_total:.1f} s, {per_phone:.2f} s a phone"
            )
            print(f"  exceptions on the pages: {len(exceptions)} {exceptions[:2]}", flush=True)


if __name__ == "__main__":
    main()
