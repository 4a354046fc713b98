"""A Streamlit browser tab without a browser: a client of ``/_stcore/stream`` that speaks
Streamlit's own protocol as a tab does, for the classroom's benchmark
(benchmarks/classroom_room.py) and the deployment's check (deploy/check.py).

A ``BackMsg`` runs the page, with the page's script hash and query string as the server last
sent them (``navigation``, ``page_info_changed``: a fragment's ``st.rerun()`` reruns the page of
that hash, and without it the app's main page), the button's trigger value for a tap, and a
rerun of each polling fragment at the interval its ``auto_rerun`` asks.

    async with Tab("http://127.0.0.1:8501", "phone 1", "room=K7QX4M", timeout=60) as tab:
        await tab.run_until("the question", starts="Tap your answer")
        await tab.run_until("the answer", tap="cls_opt_0", starts="Your answer")

``cookie`` (sent with the WebSocket's upgrade) picks a replica behind deploy/nginx.conf;
``source`` binds the client to a source address (a loopback alias 127.0.0.x); ``replica`` is
the X-Attnviz-Replica header nginx answered with (which replica holds the session).

``SyncTab`` is a Tab for synchronous code (the Playwright tests): the same calls without
``await``, its event loop in a thread of its own; ``first_visit`` gives the cookies a browser's
first page load is given (its browser id), for a Tab to send as that browser's.
"""

import asyncio
import ssl
import threading
import time
import urllib.request
from http.cookies import SimpleCookie

import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

PAGE = "Classroom"
RETAP_SECONDS = 15  # a student who sees no acknowledgement taps again


class StalledError(RuntimeError):
    """A client waited longer than the timeout: the message says for what."""


class Tab:
    """One tab's session: runs, taps, and the fragment polls the server asks for.

    It waits for what a page shows (a widget, a text), never for a run's ``script_finished``:
    in Streamlit 1.67 a poll that arrives as a full run ends starts a new ScriptRunner, and
    AppSession drops the old one's events, that run's end among them (its deltas arrive)."""

    def __init__(
        self, url, name, query, timeout, cookie=None, source=None, insecure=False, page=PAGE
    ):
        self.ws_url = url.replace("http", "ws", 1) + "/_stcore/stream"
        self.name, self.query, self.timeout, self.page = name, query, timeout, page
        self.cookie, self.source, self.insecure = cookie, source, insecure
        self.replica = None  # nginx's X-Attnviz-Replica answer: the replica's address
        self.page_hash = ""  # the page's script hash, from navigation (as the browser keeps it)
        self.widgets = {}  # user key -> widget id, every widget drawn so far
        self.charts = {}  # user key -> the Plotly figure (JSON text) last drawn under it
        self.button_types = {}  # user key -> a button's type as last drawn ("primary" ...)
        self.texts = []  # (perf_counter, text) of every markdown and alert received, in order
        self.polls = 0  # fragment runs finished
        self.retaps = 0  # taps repeated: the first was not acknowledged in RETAP_SECONDS
        self.exceptions = []  # "type: message" of every exception drawn
        self.errors = []  # the text of every error box (st.error) drawn
        self.fragments = {}  # fragment id -> interval (s), from auto_rerun
        self._changed = asyncio.Event()  # set when a text or a widget arrives

    async def __aenter__(self):
        options = {}
        if self.cookie:
            options["additional_headers"] = {"Cookie": self.cookie}
        if self.source:
            options["local_addr"] = (self.source, 0)
        if self.insecure and self.ws_url.startswith("wss:"):
            options["ssl"] = ssl._create_unverified_context()  # a test certificate
        self.ws = await websockets.connect(
            self.ws_url,
            subprotocols=["streamlit"],
            max_size=None,
            open_timeout=self.timeout,
            proxy=None,
            **options,
        )
        self.replica = self.ws.response.headers.get("X-Attnviz-Replica")
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
        msg.rerun_script.page_name = "" if self.page_hash else self.page
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
            if kind == "alert" and element.alert.format == Alert.ERROR:
                self.errors.append(element.alert.body)
            self._changed.set()
        elif kind == "metric":  # "Answered" 3 of 3, as a text "Answered: 3 of 3"
            text = f"{element.metric.label}: {element.metric.body}"
            self.texts.append((time.perf_counter(), text))
            self._changed.set()
        elif kind == "plotly_chart" and "-" in element.plotly_chart.id:
            self.charts[element.plotly_chart.id.rsplit("-", 1)[-1]] = element.plotly_chart.spec
            self._changed.set()
        if kind == "button" and "-" in element.button.id:
            self.button_types[element.button.id.rsplit("-", 1)[-1]] = element.button.type
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

    def said(self, words, since=0):
        """The first text received after the ``since``-th that contains ``words``, or None."""
        return next((t for _, t in self.texts[since:] if words in t), None)

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

    async def run(self, tap=None, ints=None, strings=None):
        """Send a full run, tapping the button ``tap`` (a widget key) if given, and setting the
        whole-number widgets ``ints`` ({key: value}, e.g. a number input) and the text widgets
        ``strings`` ({key: text}); the number of texts received before it (for ``shown``)."""
        for key in [tap] * (tap is not None) + list(ints or {}) + list(strings or {}):
            if key not in self.widgets:
                raise StalledError(f"{self.name} has no widget {key!r}: {self._said()}")
        msg = self._msg()
        if tap is not None:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = self.widgets[tap], True
        for key, value in (ints or {}).items():
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.int_value = self.widgets[key], value
        for key, value in (strings or {}).items():
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.string_value = self.widgets[key], value
        before = len(self.texts)
        await self.ws.send(msg.SerializeToString())
        return before

    async def run_until(self, what, tap=None, widget=None, starts=None, strings=None):
        """A run (tapping ``tap``, with the text widgets ``strings``), then wait for a widget
        key starting with ``widget`` or a text starting with ``starts``; the number of texts
        received before the run. A tap not acknowledged after RETAP_SECONDS is tapped again,
        as a student would (``retaps``)."""
        before = await self.run(tap, strings=strings)
        if widget is not None:
            done = lambda: any(k.startswith(widget) for k in self.widgets)  # noqa: E731
        else:
            done = lambda: self.shown(before, starts) is not None  # noqa: E731
        deadline = time.monotonic() + self.timeout
        while tap is not None and time.monotonic() + RETAP_SECONDS < deadline:
            if await self.until(done, what, within=RETAP_SECONDS):
                return before
            self.retaps += 1
            await self.run(tap, strings=strings)
        await self.until(done, what)
        return before


class SyncTab:
    """A Tab driven from synchronous code: its event loop runs in a daemon thread, and each call
    waits for its coroutine there. As a context manager it always closes the WebSocket and the
    loop.

        with SyncTab(url, "phone 2", f"room={code}", timeout=90) as phone:
            phone.run_until("the question", starts="Tap your answer")
            phone.until(lambda: "cls_dist" in phone.charts, "the class's histogram")
    """

    def __init__(self, *args, **kwargs):
        self.tab = Tab(*args, **kwargs)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def __enter__(self):
        self.thread.start()
        try:
            self._call(self.tab.__aenter__())
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._call(self._close())
        finally:
            self._stop()

    async def _close(self):
        await self.tab.__aexit__()
        await asyncio.gather(self.tab.reader, self.tab.poller, return_exceptions=True)

    def _stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()

    def run(self, tap=None, ints=None, strings=None):
        return self._call(self.tab.run(tap, ints, strings))

    def run_until(self, what, tap=None, widget=None, starts=None, strings=None):
        return self._call(self.tab.run_until(what, tap, widget, starts, strings))

    def until(self, done, what, within=None):
        return self._call(self.tab.until(done, what, within))

    def __getattr__(self, name):  # the Tab's state and reads: charts, texts, shown, said ...
        return getattr(self.tab, name)


def first_visit(url):
    """The cookies a browser's first page load of the app at ``url`` is given (``Set-Cookie``:
    its browser id, nginx's replica), as the Cookie header its later requests send."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=60) as response:
        jar = SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or ():
            jar.load(header)
    return "; ".join(f"{name}={morsel.value}" for name, morsel in jar.items())
