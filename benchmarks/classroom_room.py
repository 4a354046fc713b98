"""A class in a Classroom room on one server: a lecturer and N phones as websocket clients.

Each client speaks Streamlit's own protocol over ``/_stcore/stream`` as a browser tab does: a
``BackMsg`` to run the page, with the page's script hash and query string as the server last
sent them (``navigation``, ``page_info_changed``: a fragment's ``st.rerun()`` reruns the page
of that hash, and without it the app's main page), the button's trigger value for a tap, and a
rerun of each polling fragment at the interval its ``auto_rerun`` asks. Loopback only, drawing
nothing: 60 Chromiums would saturate this machine themselves. For each class size, in one run
against one ``streamlit run`` with the in-process store, in a new room each:

  1. the lecturer opens a room and asks the first question; N students open the join link
     (a few at a time) and each taps an answer;
  2. steady: everyone stays ``--steady`` s; the server's CPU (user + system of its process, from
     /proc/PID/stat) divided by the polls it answered is the CPU per poll;
  3. the lecturer taps Reveal: for each phone, the time until its page has run again showing
     the answer (p50 / p95 / max), and the server's CPU for that reveal.

Every wait is bounded (``--timeout``): a client that waits longer stops the script with what it
was waiting for and what its page last showed.

    python benchmarks/classroom_room.py [--students 10,30,60] [--steady 20] [--timeout 120]
                                        [--streamlit-gc 10,30]

``--streamlit-gc`` runs those class sizes again, one after the other on a second server, with
Streamlit's default ``runner.postScriptGC`` (a full ``gc.collect(2)`` after every run, each
fragment poll included), which the app's ``.streamlit/config.toml`` turns off.

A script, never a test: its numbers depend on the machine (shared here: it prints how busy).
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

from benchmarks.student import proc_cpu_s  # noqa: E402
from tools.browser import server_pid, server_port, streamlit_server  # noqa: E402

PAGE = "Classroom"
ARRIVING = 5  # students opening the join link at the same moment
ANSWER_SHOWN = "The answer:"  # markdown of the revealed page (classroom_shared.proof)


class StalledError(RuntimeError):
    """A client waited longer than the timeout: the message says for what."""


class Tab:
    """One tab's session: full runs, taps, and the fragment polls the server asks for."""

    def __init__(self, url, name, query, timeout):
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.name, self.query, self.timeout = name, query, timeout
        self.page_hash = ""  # the page's script hash, from navigation (as the browser keeps it)
        self.widgets = {}  # user key -> widget id
        self.texts = []  # markdown of the last full run
        self.full_runs = 0  # full runs finished
        self.polls = 0  # fragment runs finished
        self.exceptions = []
        self.answer_at = None  # perf_counter when the answer's markdown first arrived
        self.fragments = {}  # fragment id -> interval (s), from auto_rerun
        self._current = []
        self._idle = asyncio.Event()  # no full run asked for and unfinished
        self._idle.set()
        self._changed = asyncio.Event()  # set at the end of each full run

    async def __aenter__(self):
        self.ws = await websockets.connect(
            self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout
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
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.page_name = "" if self.page_hash else PAGE
        if fragment_id:
            msg.rerun_script.fragment_id = fragment_id
            msg.rerun_script.is_auto_rerun = True
        return msg

    async def _read(self):
        async for data in self.ws:
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "navigation" and fwd.navigation.page_script_hash:
                self.page_hash = fwd.navigation.page_script_hash  # st.navigation's page
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string  # the address bar's
            elif kind == "auto_rerun":
                self.fragments[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                self._element(fwd.delta.new_element)
            elif kind == "script_finished":
                self._finished(fwd.script_finished)

    def _element(self, element):
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.exceptions.append(f"{element.exception.type}: {element.exception.message}")
        elif kind == "markdown":
            self._current.append(element.markdown.body)
            if self.answer_at is None and element.markdown.body.startswith(ANSWER_SHOWN):
                self.answer_at = time.perf_counter()  # on the phone's screen from now
                self._changed.set()
        widget_id = getattr(getattr(element, kind), "id", "")
        if isinstance(widget_id, str) and widget_id.startswith("$$ID-"):
            self.widgets[widget_id.rsplit("-", 1)[-1]] = widget_id

    def _finished(self, how):
        if how == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
            self.polls += 1  # a fragment's deltas go to its own place: the page stays
        elif how == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self._idle.clear()  # st.rerun(): the full run follows at once
            self._current = []
        else:
            self.texts, self._current = self._current, []
            self.full_runs += 1
            self._idle.set()
            self._changed.set()

    async def _poll(self):
        """What the browser does for a fragment with run_every: rerun it at its interval."""
        while True:
            await asyncio.sleep(min(self.fragments.values(), default=1.5))
            await self._idle.wait()
            for fragment_id in list(self.fragments):
                await self.ws.send(self._msg(fragment_id).SerializeToString())

    def _shown(self):
        first = [t.splitlines()[0][:60] for t in self.texts[:6] if t.strip()]
        return f"page hash {self.page_hash!r}, query {self.query!r}, last run showed {first}"

    async def _until(self, done, what):
        """Wait until ``done()`` is true after a full run; Stalled after the timeout."""
        deadline = time.monotonic() + self.timeout
        while not done():
            self._changed.clear()  # set at the end of each full run and when the answer came
            left = deadline - time.monotonic()
            try:
                await asyncio.wait_for(self._changed.wait(), max(left, 0.01))
            except TimeoutError:
                raise StalledError(
                    f"{self.name} waited {self.timeout:g} s for {what}: {self._shown()}"
                ) from None

    async def run(self, tap=None):
        """A full run (tapping the button ``tap``, a widget key); waits for its end."""
        if tap is not None and tap not in self.widgets:
            raise StalledError(f"{self.name} has no button {tap!r}: {self._shown()}")
        msg = self._msg()
        if tap is not None:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = self.widgets[tap], True
        runs = self.full_runs
        self._idle.clear()
        await self.ws.send(msg.SerializeToString())
        await self._until(lambda: self.full_runs > runs, f"the run after tapping {tap}")

    async def answer_shown(self):
        """The moment (perf_counter) the answer's markdown reached this tab."""
        await self._until(lambda: self.answer_at is not None, f"{ANSWER_SHOWN!r} on the page")
        return self.answer_at


def quantiles(values):
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return statistics.median(values), p95, values[-1]


async def lesson(url, pid, n_students, steady_s, timeout):
    """One class of ``n_students`` in a new room: the figures as a dict."""
    async with Tab(url, "the lecturer", "", timeout) as lecturer:
        await lecturer.run()
        await lecturer.run(tap="cls_open")
        code = next((t[2:].strip() for t in lecturer.texts if t.startswith("# ")), None)
        if code is None:
            raise StalledError(f"the lecturer's page shows no room code: {lecturer._shown()}")
        await lecturer.run(tap="cls_ask")
        phones = [Tab(url, f"phone {k}", f"room={code}", timeout) for k in range(n_students)]
        for phone in phones:
            await phone.__aenter__()
        try:
            start = time.perf_counter()
            for k in range(0, len(phones), ARRIVING):  # students arrive a few at a time
                await asyncio.gather(*(p.run() for p in phones[k : k + ARRIVING]))
            opened = time.perf_counter() - start
            options = [k for k in phones[0].widgets if k.startswith("cls_opt_")]
            await asyncio.gather(
                *(p.run(tap=random.choice(options or ["cls_opt_0"])) for p in phones)
            )
            await asyncio.sleep(3)  # the fragments' first polls
            polls0, cpu0 = sum(p.polls for p in phones) + lecturer.polls, proc_cpu_s(pid)
            load = os.getloadavg()[0]
            await asyncio.sleep(steady_s)
            polls = sum(p.polls for p in phones) + lecturer.polls - polls0
            cpu = proc_cpu_s(pid) - cpu0
            cpu0, t0 = proc_cpu_s(pid), time.perf_counter()
            await lecturer.run(tap="cls_reveal")
            seen = await asyncio.gather(*(p.answer_shown() for p in phones))
            reveal_cpu = proc_cpu_s(pid) - cpu0
            exceptions = [e for tab in (lecturer, *phones) for e in tab.exceptions]
        finally:
            for phone in phones:
                await phone.__aexit__()
        await lecturer.run(tap="cls_close")
    return {
        "load": load,
        "opened": opened,
        "polls": polls,
        "cpu": cpu,
        "waits": [t - t0 for t in seen],
        "reveal_cpu": reveal_cpu,
        "exceptions": exceptions,
    }


def report(n, steady_s, f):
    p50, p95, most = quantiles(f["waits"])
    print(f"{n} phones (load average {f['load']:.1f} on {os.cpu_count()} cores while polling)")
    print(f"  all opened the join link, {ARRIVING} at a time, in {f['opened']:.1f} s")
    print(f"  steady {steady_s:g} s: {f['polls']} polls, {f['polls'] / steady_s:.1f} a second")
    print(f"  server CPU per poll: {f['cpu'] / max(f['polls'], 1) * 1000:.2f} ms")
    print(f"  server CPU while polling: {f['cpu'] / steady_s * 100:.0f} % of one core")
    print(f"  reveal on every phone: p50 {p50:.2f} s, p95 {p95:.2f} s, max {most:.2f} s")
    print(f"  server CPU for the reveal: {f['reveal_cpu']:.2f} s")
    print(f"  exceptions on the pages: {len(f['exceptions'])} {f['exceptions'][:2]}", flush=True)


def classes(sizes, steady_s, timeout, env):
    """Every class size against one server started with ``env`` added to its environment."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        with streamlit_server() as url:
            pid = server_pid(server_port(url))
            for n in sizes:
                try:
                    figures = asyncio.run(lesson(url, pid, n, steady_s, timeout))
                except StalledError as exc:
                    print(f"{n} phones: stalled. {exc}", flush=True)
                    return
                report(n, steady_s, figures)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", default="10,30,60", help="class sizes, comma-separated")
    parser.add_argument("--steady", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=120.0, help="longest wait (s)")
    parser.add_argument(
        "--streamlit-gc",
        default="",
        help="class sizes to run again with Streamlit's default gc.collect(2) after every run "
        "(the app's .streamlit/config.toml turns it off), e.g. 10,30",
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.students.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    print("The app's configuration (runner.postScriptGC off):")
    classes(sizes, args.steady, args.timeout, {})
    if args.streamlit_gc:
        print("Streamlit's default (runner.postScriptGC on: a full collection after each run):")
        gc_sizes = [int(n) for n in args.streamlit_gc.split(",")]
        classes(gc_sizes, args.steady, args.timeout, {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"})


if __name__ == "__main__":
    main()
