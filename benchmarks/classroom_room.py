"""A class in a Classroom room on one server: a lecturer and N phones as websocket clients.

Each client speaks Streamlit's own protocol over ``/_stcore/stream`` as a browser tab does (a
``BackMsg`` to run the page, the widgets' trigger values for a tap, and, every time the server
asks for it with an ``auto_rerun``, a rerun of the fragment that polls the room), loopback only,
drawing nothing: 60 Chromiums would saturate this machine themselves. Bounded: it stops by
itself after ``--steady`` seconds of polling and the reveal.

  1. the lecturer opens a room and asks the first question; N students open the join link and
     each taps an answer;
  2. steady: everyone stays ``--steady`` s; the server's CPU (user + system of its process, from
     /proc/PID/stat) divided by the polls it answered is the CPU per poll;
  3. the lecturer taps Reveal: for each phone, the time until its page has run again showing
     the answer (p50 / p95 / max), and the server's CPU for that reveal.

    python benchmarks/classroom_room.py [--students 60] [--steady 20]

A script, never a test: its numbers depend on the machine (shared here: say how busy it was).
"""

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.browser import server_port, streamlit_server  # noqa: E402

PAGE = "Classroom"
FRAGMENT_FINISHED = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
ARRIVING = 5  # students opening the join link at the same moment
RUN_TIMEOUT_S = 600  # a run that takes longer is a failure (on a machine shared by many)


def proc_cpu_s(pid):
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid(port):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(cmdline) and str(port).encode() in cmdline:
            return int(pid)
    raise RuntimeError(f"no streamlit process on port {port}")


class Tab:
    """One tab's session: runs, taps, and the fragment polls the server asks for."""

    def __init__(self, url, query=""):
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.query = query
        self.widgets = {}  # user key -> widget id
        self.texts = []  # markdown of the last full run
        self.fragments = {}  # fragment id -> interval (s), from auto_rerun
        self.polls = 0  # fragment runs finished
        self.full_runs = asyncio.Event()  # set at the end of each full run
        self.exceptions = 0
        self._current = []

    async def __aenter__(self):
        self.ws = await websockets.connect(
            self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=120
        )
        self.reader = asyncio.create_task(self._read())
        self.poller = asyncio.create_task(self._poll())
        return self

    async def __aexit__(self, *exc):
        self.poller.cancel()
        self.reader.cancel()
        await self.ws.close()

    def _msg(self, fragment_id=""):
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = PAGE
        msg.rerun_script.page_script_hash = ""
        if fragment_id:
            msg.rerun_script.fragment_id = fragment_id
            msg.rerun_script.is_auto_rerun = True
        return msg

    async def _read(self):
        async for data in self.ws:
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "auto_rerun":
                self.fragments[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "delta":
                if fwd.delta.WhichOneof("type") == "new_element":
                    element = fwd.delta.new_element
                    el_kind = element.WhichOneof("type")
                    if el_kind == "exception":
                        self.exceptions += 1
                    elif el_kind == "markdown":
                        self._current.append(element.markdown.body)
                    widget_id = getattr(getattr(element, el_kind), "id", "")
                    if isinstance(widget_id, str) and widget_id.startswith("$$ID-"):
                        self.widgets[widget_id.rsplit("-", 1)[-1]] = widget_id
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    self._current = []  # st.rerun(): the next run follows at once
                elif fwd.script_finished == FRAGMENT_FINISHED:
                    self.polls += 1
                else:
                    self.texts, self._current = self._current, []
                    self.full_runs.set()

    async def _poll(self):
        """What the browser does for a fragment with run_every: rerun it at its interval."""
        while True:
            await asyncio.sleep(min(self.fragments.values(), default=1.5))
            for fragment_id in list(self.fragments):
                await self.ws.send(self._msg(fragment_id).SerializeToString())

    async def run(self, tap=None):
        """A full run (tapping the button ``tap``, a widget key); waits for its end."""
        msg = self._msg()
        if tap is not None:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = self.widgets[tap], True
        self.full_runs.clear()
        await self.ws.send(msg.SerializeToString())
        await asyncio.wait_for(self.full_runs.wait(), RUN_TIMEOUT_S)

    async def wait_for_text(self, needle, timeout=RUN_TIMEOUT_S):
        """The moment (perf_counter) a full run showed markdown containing ``needle``."""
        while not any(needle in t for t in self.texts):
            self.full_runs.clear()
            await asyncio.wait_for(self.full_runs.wait(), timeout)
        return time.perf_counter()


def quantiles(values):
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return statistics.median(values), p95, values[-1]


async def lesson(url, pid, n_students, steady_s):
    async with Tab(url) as lecturer:
        await lecturer.run()
        await lecturer.run(tap="cls_open")
        code = next(t[2:].strip() for t in lecturer.texts if t.startswith("# "))
        await lecturer.run(tap="cls_ask")
        phones = [Tab(url, f"room={code}") for _ in range(n_students)]
        for phone in phones:
            await phone.__aenter__()
        try:
            start = time.perf_counter()
            for k in range(0, len(phones), ARRIVING):  # students arrive a few at a time
                await asyncio.gather(*(p.run() for p in phones[k : k + ARRIVING]))
            opened = time.perf_counter() - start
            options = [k for k in phones[0].widgets if k.startswith("cls_opt_")]
            await asyncio.gather(*(p.run(tap=random.choice(options)) for p in phones))
            await asyncio.sleep(3)  # the fragments' first polls
            polls0, cpu0 = sum(p.polls for p in phones) + lecturer.polls, proc_cpu_s(pid)
            await asyncio.sleep(steady_s)
            polls = sum(p.polls for p in phones) + lecturer.polls - polls0
            cpu = proc_cpu_s(pid) - cpu0
            cpu0, t0 = proc_cpu_s(pid), time.perf_counter()
            await lecturer.run(tap="cls_reveal")
            seen = await asyncio.gather(*(p.wait_for_text("The answer:") for p in phones))
            waits = [t - t0 for t in seen]
            reveal_cpu = proc_cpu_s(pid) - cpu0
            exceptions = sum(p.exceptions for p in phones) + lecturer.exceptions
        finally:
            for phone in phones:
                await phone.__aexit__()
    return opened, polls, cpu, waits, reveal_cpu, exceptions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--steady", type=float, default=20.0)
    args = parser.parse_args()
    with streamlit_server() as url:
        pid = server_pid(server_port(url))
        load = os.getloadavg()[0]
        opened, polls, cpu, waits, reveal_cpu, exceptions = asyncio.run(
            lesson(url, pid, args.students, args.steady)
        )
        p50, p95, most = quantiles(waits)
        print(f"{args.students} phones, load average {load:.1f} on {os.cpu_count()} cores")
        print(f"  all opened the join link, {ARRIVING} at a time, in {opened:.1f} s")
        print(f"  steady {args.steady:g} s: {polls} polls, {polls / args.steady:.1f} a second")
        print(f"  server CPU per poll: {cpu / max(polls, 1) * 1000:.2f} ms")
        print(f"  server CPU while polling: {cpu / args.steady * 100:.0f} % of one core")
        print(f"  reveal on every phone: p50 {p50:.2f} s, p95 {p95:.2f} s, max {most:.2f} s")
        print(f"  server CPU for the reveal: {reveal_cpu:.2f} s")
        print(f"  exceptions on the pages: {exceptions}")


if __name__ == "__main__":
    main()
