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

    python -m benchmarks.classroom_room [--students 10,30,60] [--steady 20] [--timeout 120]
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
import time
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from benchmarks.student import proc_cpu_s
from tools.browser import server_pid, server_port, streamlit_server

ROOT = Path(__file__).resolve().parent.parent


PAGE = "Classroom"
ARRIVING = 5  # students opening the join link at the same moment
ANSWER_SHOWN = "The answer:"  # markdown of the revealed page (classroom_shared.proof)
RETAP_SECONDS = 15  # a student who sees no acknowledgement taps again


class StalledError(RuntimeError):
    """A client waited longer than the timeout: the message says for what."""


class Tab:
    """One tab's session: runs, taps, and the fragment polls the server asks for.

    It waits for what a page shows (a widget, a text), never for a run's ``script_finished``:
    in Streamlit 1.67 a poll that arrives as a full run ends starts a new ScriptRunner, and
    AppSession drops the old one's events, that run's end among them (its deltas arrive)."""

    def __init__(self, url, name, query, timeout):
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.name, self.query, self.timeout = name, query, timeout
        self.page_hash = ""  # the page's script hash, from navigation (as the browser keeps it)
        self.widgets = {}  # user key -> widget id, every widget drawn so far
        self.texts = []  # (perf_counter, text) of every markdown and alert received, in order
        self.polls = 0  # fragment runs finished
        self.retaps = 0  # taps repeated: the first was not acknowledged in RETAP_SECONDS
        self.exceptions = []
        self.fragments = {}  # fragment id -> interval (s), from auto_rerun
        self._changed = asyncio.Event()  # set when a text or a widget arrives

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
                self.polls += fwd.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY

    def _element(self, element):
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.exceptions.append(f"{element.exception.type}: {element.exception.message}")
        elif kind in ("markdown", "alert"):
            self.texts.append((time.perf_counter(), getattr(element, kind).body))
            self._changed.set()
        widget_id = getattr(getattr(element, kind), "id", "")
        if isinstance(widget_id, str) and widget_id.startswith("$$ID-"):
            self.widgets[widget_id.rsplit("-", 1)[-1]] = widget_id
            self._changed.set()

    async def _poll(self):
        """What the browser does for a fragment with run_every: rerun it at its interval."""
        while True:
            await asyncio.sleep(min(self.fragments.values(), default=1.5))
            for fragment_id in list(self.fragments):
                await self.ws.send(self._msg(fragment_id).SerializeToString())

    def shown(self, since=0, starts=""):
        """(perf_counter, text) of the first text received after the ``since``-th that starts
        with ``starts``, or None."""
        return next((t for t in self.texts[since:] if t[1].startswith(starts)), None)

    def _said(self):
        last = [t.splitlines()[0][:50] for _, t in self.texts[-5:] if t.strip()]
        return f"page hash {self.page_hash!r}, query {self.query!r}, its last texts {last}"

    async def until(self, done, what, within=None):
        """Wait until ``done()`` is true; StalledError (saying ``what``) after the timeout, or
        False after ``within`` seconds if given."""
        deadline = time.monotonic() + (self.timeout if within is None else within)
        while not done():
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), max(deadline - time.monotonic(), 0))
            except TimeoutError:
                if within is not None:
                    return False
                raise StalledError(
                    f"{self.name} waited {self.timeout:g} s for {what}: {self._said()}"
                ) from None
        return True

    async def run(self, tap=None):
        """Send a full run, tapping the button ``tap`` (a widget key) if given; the number of
        texts received before it (for ``shown``)."""
        if tap is not None and tap not in self.widgets:
            raise StalledError(f"{self.name} has no button {tap!r}: {self._said()}")
        msg = self._msg()
        if tap is not None:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = self.widgets[tap], True
        before = len(self.texts)
        await self.ws.send(msg.SerializeToString())
        return before

    async def run_until(self, what, tap=None, widget=None, starts=None):
        """A run (tapping ``tap``), then wait for a widget key starting with ``widget`` or a
        text starting with ``starts``; the number of texts received before the run. A tap not
        acknowledged after RETAP_SECONDS is tapped again, as a student would (``retaps``)."""
        before = await self.run(tap)
        if widget is not None:
            done = lambda: any(k.startswith(widget) for k in self.widgets)  # noqa: E731
        else:
            done = lambda: self.shown(before, starts) is not None  # noqa: E731
        deadline = time.monotonic() + self.timeout
        while tap is not None and time.monotonic() + RETAP_SECONDS < deadline:
            if await self.until(done, what, within=RETAP_SECONDS):
                return before
            self.retaps += 1
            await self.run(tap)
        await self.until(done, what)
        return before


def quantiles(values):
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return statistics.median(values), p95, values[-1]


async def lesson(url, pid, n_students, steady_s, timeout):
    """One class of ``n_students`` in a new room: the figures as a dict."""
    async with Tab(url, "the lecturer", "", timeout) as lecturer:
        await lecturer.run_until("the Open-a-room button", widget="cls_open")
        before = await lecturer.run_until("the room's page", tap="cls_open", widget="cls_ask")
        code = lecturer.shown(before, "# ")[1][2:].strip()  # drawn before cls_ask
        await lecturer.run_until("the Reveal button", tap="cls_ask", widget="cls_reveal")
        phones = [Tab(url, f"phone {k}", f"room={code}", timeout) for k in range(n_students)]
        for phone in phones:
            await phone.__aenter__()
        try:
            start = time.perf_counter()
            for k in range(0, len(phones), ARRIVING):  # students arrive a few at a time
                arriving = phones[k : k + ARRIVING]
                await asyncio.gather(
                    *(p.run_until("the question", starts="Tap your answer") for p in arriving)
                )  # the caption under the option buttons
            opened = time.perf_counter() - start
            options = sorted(k for k in phones[0].widgets if k.startswith("cls_opt_"))
            await asyncio.gather(
                *(
                    p.run_until(
                        "the answer acknowledged", random.choice(options), None, "Your answer"
                    )
                    for p in phones
                )
            )
            await asyncio.sleep(3)  # the fragments' first polls
            polls0, cpu0 = sum(p.polls for p in phones) + lecturer.polls, proc_cpu_s(pid)
            load = os.getloadavg()[0]
            await asyncio.sleep(steady_s)
            polls = sum(p.polls for p in phones) + lecturer.polls - polls0
            cpu = proc_cpu_s(pid) - cpu0
            polling(n_students, load, opened, steady_s, polls, cpu)
            before = [len(p.texts) for p in phones]
            cpu0, t0 = proc_cpu_s(pid), time.perf_counter()
            await lecturer.run(tap="cls_reveal")
            await asyncio.gather(
                *(
                    p.until(lambda p=p, b=b: p.shown(b, ANSWER_SHOWN), repr(ANSWER_SHOWN))
                    for p, b in zip(phones, before, strict=True)
                )
            )
            waits = [p.shown(b, ANSWER_SHOWN)[0] - t0 for p, b in zip(phones, before, strict=True)]
            reveal_cpu = proc_cpu_s(pid) - cpu0
            exceptions = [e for tab in (lecturer, *phones) for e in tab.exceptions]
            retaps = sum(tab.retaps for tab in (lecturer, *phones))
        finally:
            for phone in phones:
                await phone.__aexit__()
        await lecturer.run_until("the room closed", tap="cls_close", starts=f"Room {code} is")
    return {
        "waits": waits,
        "reveal_cpu": reveal_cpu,
        "exceptions": exceptions,
        "retaps": retaps,
    }


def polling(n, load, opened, steady_s, polls, cpu):
    """The figures of the steady phase, printed before the reveal (which may stall)."""
    print(f"{n} phones (load average {load:.1f} on {os.cpu_count()} cores while polling)")
    print(f"  all saw the question ({ARRIVING} joining at a time) in {opened:.1f} s")
    print(f"  steady {steady_s:g} s: {polls} polls, {polls / steady_s:.1f} a second")
    print(f"  server CPU per poll: {cpu / max(polls, 1) * 1000:.2f} ms")
    print(f"  server CPU while polling: {cpu / steady_s * 100:.0f} % of one core", flush=True)


def report(f):
    p50, p95, most = quantiles(f["waits"])
    print(f"  reveal on every phone: p50 {p50:.2f} s, p95 {p95:.2f} s, max {most:.2f} s")
    print(f"  server CPU for the reveal: {f['reveal_cpu']:.2f} s")
    print(f"  taps repeated (not acknowledged in {RETAP_SECONDS} s): {f['retaps']}")
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
                report(figures)
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
