"""A lecture hall on the light phone page: a lecturer on the Streamlit page and N phones as
plain HTTP clients of the room's API (attnviz/web/phone), each from its own loopback address
(127.0.0.2, 127.0.0.3 ..., 100 to a /24: Linux routes all of 127.0.0.0/8 to the loopback),
against one ``streamlit run`` serving the App (the in-process store), or ``--replicas N``
behind nginx with one Redis (tools/services.py).

Each phone does what the page's script does: joins (POST), then asks for the room's state
and waits for its next change (the long poll, PHONE_WAIT_SECONDS at most), answers, and asks
again. The lecturer (tools/streamlit_client.Tab, Streamlit's own protocol) opens a room and
asks a question in two rounds (vote, discuss, revote), reveals it, asks its twin and reveals
it, then a sketch of a row, revealed. Printed:

  - joins: how long until every phone had joined and seen the room's state;
  - steady: phones waiting on an unchanged room for ``--steady`` s: the server's CPU per
    request answered (a waiting phone asks again every PHONE_WAIT_SECONDS);
  - for each reveal: the time from the lecturer's tap until each phone has the revealed state
    (p50 / p95 / max) and the server's CPU for it, per phone;
  - the load generator's own CPU apart (this process), as it shares the machine's two cores.

Every wait is bounded (``--timeout``); loopback only.

    python -m benchmarks.hall [--phones 500] [--steady 20] [--timeout 120] [--replicas 2]
                              [--poll 1.5]   (poll the version instead, to compare)

A script, never a test: its numbers depend on the machine (shared here: it prints how busy).
"""

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import random
import resource
import secrets
import tempfile
import time

from benchmarks.classroom_room import cpu_s, patched_env, quantiles
from tools.browser import server_pid, server_port, streamlit_server
from tools.services import nginx_proxy, redis_server
from tools.streamlit_client import StalledError, Tab

JOINING = 25  # phones opening the join link at the same moment
PER_NETWORK = 100  # phones a /24 network holds here: a room takes at most
# MAX_NEW_STUDENTS_PER_NETWORK new students from one network a minute unless its lecturer sets
# a larger class size (classroom/joins.network_burst: a hall behind one NAT), which this
# benchmark does not set


def source(k):
    """Phone ``k``'s source address: 127.0.N.(2 + k mod PER_NETWORK), N = k // PER_NETWORK."""
    return f"127.0.{k // PER_NETWORK}.{2 + k % PER_NETWORK}"


class Phone:
    """One phone: a keep-alive HTTP/1.1 connection from its own source address, its cookie,
    the room state it shows, and when each version first reached it."""

    def __init__(self, host, port, address, timeout):
        self.host, self.port, self.address, self.timeout = host, port, address, timeout
        self.origin = f"http://{host}:{port}"
        self.cookies = {}  # name -> value: the app's browser id, nginx's replica cookie
        self.state = None
        self.arrived = {}  # version -> perf_counter when the phone first had it
        self.requests = 0
        self.idle = []  # keep-alive connections not in use (a browser keeps up to six)

    async def request(self, method, path, body=None):
        """(status, JSON body) of one request, on an idle connection or a new one."""
        for attempt in range(2):
            if self.idle:
                conn = self.idle.pop()
            else:
                local = (self.address, 0) if self.address else None
                conn = await asyncio.open_connection(self.host, self.port, local_addr=local)
            try:
                answer = await asyncio.wait_for(
                    self._exchange(conn, method, path, body), self.timeout
                )
            except (ConnectionError, asyncio.IncompleteReadError):
                conn[1].close()
                if attempt:
                    raise
                continue
            self.idle.append(conn)
            return answer
        raise AssertionError("unreachable")

    async def _exchange(self, conn, method, path, body):
        reader, writer = conn
        data = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += ["Accept-Encoding: gzip", f"Origin: {self.origin}"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        first = await reader.readline()
        if not first:  # the server closed the idle connection (uvicorn keeps one 5 s)
            raise ConnectionResetError("closed")
        status = int(first.split()[1])
        headers = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                cookie, _, rest = value.partition(";")
                key, _, text = cookie.partition("=")
                if "max-age=0" not in rest.lower():
                    self.cookies[key.strip()] = text.strip()
            headers[name] = value
        if headers.get("transfer-encoding") == "chunked":
            raw = b""
            while size := int((await reader.readline()).strip(), 16):
                raw += await reader.readexactly(size + 2)
                raw = raw[:-2]
            await reader.readline()
        else:
            raw = await reader.readexactly(int(headers.get("content-length", 0)))
        if headers.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        self.requests += 1
        return status, json.loads(raw) if raw else None

    async def post(self, code, what, **body):
        status, answer = await self.request("POST", f"/api/rooms/{code}/{what}", body)
        if status != 200:
            raise StalledError(f"phone {self.address}: {what} refused ({status}): {answer}")
        return answer

    async def refresh(self, code, seen=None):
        query = "" if seen is None else f"?seen={seen}"
        status, state = await self.request("GET", f"/api/rooms/{code}/state{query}")
        if status != 200:
            raise StalledError(f"phone {self.address}: state refused ({status}): {state}")
        if not state.get("same"):  # "same": nothing changed while it waited
            self.state = state
            self.arrived.setdefault(state["version"], time.perf_counter())
        return state

    async def follow(self, code, stop, poll=0.0):
        """What the page's script does: wait for the room's next change, again and again; or,
        with ``poll`` (seconds), the other way measured: ask for the room's version every
        ``poll`` seconds and for its state when it changed."""
        if poll:
            await asyncio.sleep(random.uniform(0, poll))  # phones not in step
        while not stop.is_set():
            if not poll:
                await self.refresh(code, self.state["version"])
                continue
            await asyncio.sleep(poll)
            status, answer = await self.request("GET", f"/api/rooms/{code}/version")
            if status == 200 and answer["version"] != self.state["version"]:
                await self.refresh(code)

    def close(self):
        for _, writer in self.idle:
            writer.close()


async def wait_for(what, done, timeout):
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise StalledError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.05)


async def settled(tab, quiet=0.7, most=15.0):
    """Wait until ``tab`` has received nothing new for ``quiet`` seconds (at most ``most``)."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        seen = (len(tab.texts), len(tab.widgets), tuple(tab.widgets.values()))
        await asyncio.sleep(quiet)
        if seen == (len(tab.texts), len(tab.widgets), tuple(tab.widgets.values())):
            return


class Hall:
    """The lecturer, the phones and the server's CPU."""

    def __init__(self, url, pids, n, timeout, steady, poll=0.0):
        self.url, self.pids, self.n, self.timeout, self.steady = url, pids, n, timeout, steady
        self.poll = poll
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        self.phones = [Phone(host, int(port), source(k), timeout) for k in range(n)]
        self.watcher = Phone(host, int(port), None, timeout)
        self.stop = asyncio.Event()

    def version(self):
        return self.watcher.state["version"]

    async def step(self, lecturer, tap):
        """The lecturer's tap; returns (perf_counter of the tap, the new version)."""
        old = self.version()
        t0 = time.perf_counter()
        await lecturer.run(tap=tap)
        await wait_for(f"the room after {tap}", lambda: self.version() != old, self.timeout)
        version = self.version()
        await settled(lecturer)  # its page drawn again: the next step's button is known
        return t0, version

    async def reveal(self, lecturer, tap, name):
        """A reveal: every phone's wait for it and the server's CPU, per phone."""
        cpu0 = cpu_s(self.pids)
        t0, version = await self.step(lecturer, tap)
        await wait_for(
            f"{name} on every phone",
            lambda: all(version in p.arrived for p in self.phones),
            self.timeout,
        )
        cpu = cpu_s(self.pids) - cpu0
        p50, p95, most = quantiles([p.arrived[version] - t0 for p in self.phones])
        print(
            f"  {name}: p50 {p50:.2f} s, p95 {p95:.2f} s, max {most:.2f} s; server CPU "
            f"{cpu:.2f} s, {cpu / self.n * 1000:.2f} ms a phone",
            flush=True,
        )

    async def tap_all(self, code, what, value):
        """Every phone taps (``value(k)``: phone k's body), then asks for its state at once,
        as the page does to show the tap acknowledged."""

        async def tap(k, phone):
            await phone.post(code, what, **value(k))
            await phone.refresh(code)

        await asyncio.gather(*(tap(k, p) for k, p in enumerate(self.phones)))

    async def run(self):
        mine = time.process_time()
        async with Tab(self.url, "the lecturer", "", self.timeout) as lecturer:
            await lecturer.run_until("the Open-a-room button", widget="cls_open")
            before = await lecturer.run_until("the room's page", tap="cls_open", widget="cls_ask")
            code = lecturer.shown(before, "# ")[1][2:].strip()
            await self.watcher.refresh(code)
            watching = asyncio.create_task(self.watcher.follow(code, self.stop))
            start = time.perf_counter()
            for k in range(0, self.n, JOINING):
                group = self.phones[k : k + JOINING]
                await asyncio.gather(*(p.post(code, "join") for p in group))
                await asyncio.gather(*(p.refresh(code) for p in group))
            print(
                f"{self.n} phones joined and saw the room in {time.perf_counter() - start:.1f} s",
                flush=True,
            )
            following = [
                asyncio.create_task(p.follow(code, self.stop, self.poll)) for p in self.phones
            ]
            await asyncio.sleep(1)
            requests0, cpu0 = sum(p.requests for p in self.phones), cpu_s(self.pids)
            await asyncio.sleep(self.steady)
            requests = sum(p.requests for p in self.phones) - requests0
            cpu = cpu_s(self.pids) - cpu0
            print(
                f"  steady {self.steady:g} s: {requests} requests ({requests / self.steady:.0f} a"
                f" second), server CPU {cpu / max(requests, 1) * 1000:.2f} ms a request, "
                f"{cpu / self.steady * 100:.0f} % of one core",
                flush=True,
            )
            await lecturer.run(strings={"cls_rounds": "Vote, discuss, revote"})
            await settled(lecturer)  # the Ask button drawn again, asking for two rounds
            await self.step(lecturer, "cls_ask")
            n_options = len(self.watcher.state["shared"]["question"]["options"])
            first = [random.randrange(n_options) for _ in self.phones]
            await self.tap_all(code, "answer", lambda k: {"option": first[k]})
            await self.tap_all(code, "confidence", lambda k: {"level": k % 3})
            await self.step(lecturer, "cls_step")  # end round 1
            await self.step(lecturer, "cls_step")  # discuss
            await self.step(lecturer, "cls_step")  # round 2
            await self.tap_all(code, "answer", lambda k: {"option": (first[k] + k % 2) % n_options})
            await self.step(lecturer, "cls_step")  # end round 2
            await self.reveal(lecturer, "cls_reveal", "the reveal of two rounds")
            await self.step(lecturer, "cls_twin")
            await self.tap_all(code, "answer", lambda k: {"option": k % n_options})
            await self.reveal(lecturer, "cls_reveal", "the twin's reveal")
            await self.step(lecturer, "cls_sk_ask")
            labels = self.watcher.state["shared"]["sketch"]["labels"]
            await self.tap_all(
                code, "sketch", lambda k: {"levels": [random.randint(1, 5) for _ in labels]}
            )
            await self.reveal(lecturer, "cls_sk_reveal", "the sketch's reveal")
            self.stop.set()
            await self.step(lecturer, "cls_close")
            await asyncio.gather(*following, watching, return_exceptions=True)
        for p in (*self.phones, self.watcher):
            p.close()
        print(f"  the load generator's own CPU: {time.process_time() - mine:.1f} s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, default=500)
    parser.add_argument("--steady", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=120.0, help="longest wait (s)")
    parser.add_argument("--replicas", type=int, default=0, help="replicas behind nginx, here")
    parser.add_argument(
        "--poll", type=float, default=0.0, help="phones poll the version every POLL s instead"
    )
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.phones + 256)), hard))
    print(f"load average {os.getloadavg()[0]:.1f} at the start, {os.cpu_count()} cores", flush=True)
    with contextlib.ExitStack() as stack:
        if args.replicas:
            folder = stack.enter_context(tempfile.TemporaryDirectory())
            redis = stack.enter_context(redis_server(recipe=True, folder=folder))
            stack.enter_context(patched_env("ATTNVIZ_REDIS_URL", redis))
            secret = os.environ.get("ATTNVIZ_SECRET") or secrets.token_hex(32)
            stack.enter_context(patched_env("ATTNVIZ_SECRET", secret))
            urls = [stack.enter_context(streamlit_server()) for _ in range(args.replicas)]
            url = stack.enter_context(nginx_proxy([u.split("//", 1)[1] for u in urls]))
        else:
            url = stack.enter_context(streamlit_server())
            urls = [url]
        pids = [server_pid(server_port(u)) for u in urls]
        where = f"{args.replicas} replicas behind nginx, Redis" if args.replicas else "one server"
        how = f"polling every {args.poll:g} s" if args.poll else "waiting for changes (long poll)"
        print(f"{args.phones} phones on the light page, {how}, {where}", flush=True)
        try:
            hall = Hall(url, pids, args.phones, args.timeout, args.steady, args.poll)
            asyncio.run(hall.run())
        except StalledError as exc:
            print(f"stalled: {exc}", flush=True)


if __name__ == "__main__":
    main()
