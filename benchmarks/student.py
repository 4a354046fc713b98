"""A student without a browser: a websocket client that speaks Streamlit's own protocol.

It opens a page the way a browser does (``/_stcore/stream``, a ``BackMsg`` asking to run the
page with the link's query string), reads the ``ForwardMsg``s until the run has finished, and
changes a widget (a sidebar number such as ``attnviz_d_k``) by sending the one new widget state
in a rerun, as the browser does when a student edits it. It draws nothing, so a benchmark can
run dozens of them against a real ``streamlit run`` where dozens of Chromiums would saturate
the machine themselves. Loopback only: the server is ours.

    async with Student(url, "Step_by_step", {"tokens": "the cat sat", "d_k": "4"}) as s:
        await s.open()               # seconds until the first run finished
        await s.set_int("attnviz_d_k", 3)

Used by benchmarks/classroom.py and benchmarks/step_cpu.py.
"""

import asyncio
import os
import time
from pathlib import Path
from urllib.parse import urlencode

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

RUN_TIMEOUT_S = 300  # a run that takes longer is a failure, not a wait


class RunError(RuntimeError):
    """The page's run did not finish cleanly (an exception on the page, or a lost socket)."""


class Student:
    """One browser tab's Streamlit session, driven over its websocket."""

    def __init__(self, url, page, query):
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.page = page
        self.query = urlencode(query)
        self.widgets = {}  # user key -> widget id, from the elements the server sent
        self.texts = []  # the markdown of the last run, to check what it showed
        self.exceptions, self.error = 0, ""
        self.ws = None

    async def __aenter__(self):
        self.ws = await websockets.connect(
            self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=60
        )
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    def _client_state(self, msg):
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        msg.rerun_script.page_script_hash = ""

    async def _run(self, msg):
        """Send ``msg`` (a BackMsg), read until the run it started has finished; seconds."""
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        self.texts, self.exceptions = [], 0
        while True:
            data = await asyncio.wait_for(self.ws.recv(), RUN_TIMEOUT_S)
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                self._read(fwd.delta.new_element)
            elif kind == "script_finished":
                if fwd.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                    raise RunError(f"the run ended with {fwd.script_finished}")
                break
        if self.exceptions:
            raise RunError(f"{self.exceptions} exception(s) on the page, e.g. {self.error}")
        return time.perf_counter() - start

    def _read(self, element):
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.exceptions += 1
            self.error = f"{element.exception.type}: {element.exception.message}"
        elif kind == "markdown":
            self.texts.append(element.markdown.body)
        else:
            widget_id = getattr(getattr(element, kind), "id", "")
            if isinstance(widget_id, str) and widget_id.startswith("$$ID-"):
                self.widgets[widget_id.rsplit("-", 1)[-1]] = widget_id

    async def open(self):
        """Run the page as a new tab does; seconds until its run finished."""
        msg = BackMsg()
        self._client_state(msg)
        return await self._run(msg)

    async def set_int(self, key, value):
        """Set the integer widget under ``key`` (a number input) and rerun; seconds."""
        return await self._set(key, "int_value", value)

    async def set_string(self, key, value):
        """Set the widget under ``key`` whose state is a string (a radio or a selectbox: its
        option as formatted on screen) and rerun; seconds."""
        return await self._set(key, "string_value", value)

    async def _set(self, key, field, value):
        """Set field ``field`` of the widget state under ``key`` to ``value``, and rerun."""
        msg = BackMsg()
        self._client_state(msg)
        state = msg.rerun_script.widget_states.widgets.add()
        state.id = self.widgets[key]
        setattr(state, field, value)
        return await self._run(msg)


def proc_cpu_s(pid):
    """User + system CPU seconds of process ``pid`` so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss_mb(pid):
    """Resident memory (MB) of process ``pid``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
