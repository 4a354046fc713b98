"""A class in a Classroom room: a lecturer and N phones as websocket clients, on one server or
on a deployment of several replicas behind nginx.

Each client speaks Streamlit's own protocol over ``/_stcore/stream`` as a browser tab does
(tools/streamlit_client.py). Loopback only, drawing nothing: 60 Chromiums would saturate this
machine themselves. For each class size, in a new room each, against one ``streamlit run``
with the in-process store (the default), or ``--replicas N`` started here as deploy/ says
(deploy/redis.conf's Redis, N replicas, deploy/nginx.conf's nginx), or a deployment running
elsewhere at ``--base-url`` (its replicas' CPU is read when ``--replica-ports`` names them on
this machine):

  1. the lecturer opens a room and asks the first question; N students open the join link
     (a few at a time) and each taps an answer;
  2. steady: everyone stays ``--steady`` s; the servers' CPU (user + system of their processes,
     from /proc/PID/stat) divided by the polls they answered is the CPU per poll;
  3. the lecturer taps Reveal: for each phone, the time until its page has run again showing
     the answer (p50 / p95 / max), and the servers' CPU for that reveal, per phone.

Behind nginx, ``--sources`` binds phone k to its own source address (127.0.0.2, 127.0.0.3 ...:
Linux routes all of 127.0.0.0/8 to the loopback, no alias needed), as a class on one Wi-Fi
subnet; nginx's cookie stickiness spreads them over the replicas all the same.

Every wait is bounded (``--timeout``): a client that waits longer stops the script with what it
was waiting for and what its page last showed.

    python -m benchmarks.classroom_room [--students 10,30,60] [--steady 20] [--timeout 120]
                                        [--streamlit-gc 10,30]
    python -m benchmarks.classroom_room --replicas 2 --sources --students 120
    python -m benchmarks.classroom_room --base-url https://HOST --replica-ports 8501,8502

``--streamlit-gc`` runs those class sizes again, one after the other on a second server, with
Streamlit's default ``runner.postScriptGC`` (a full ``gc.collect(2)`` after every run, each
fragment poll included), which the app's ``.streamlit/config.toml`` turns off.

A script, never a test: its numbers depend on the machine (shared here: it prints how busy).
"""

import argparse
import asyncio
import collections
import contextlib
import functools
import os
import random
import secrets
import statistics
import tempfile
import time

from benchmarks.student import proc_cpu_s
from tools.browser import server_pid, server_port, streamlit_server
from tools.services import nginx_proxy, redis_server
from tools.streamlit_client import RETAP_SECONDS, StalledError, Tab

ARRIVING = 5  # students opening the join link at the same moment
ANSWER_SHOWN = "The answer:"  # markdown of the revealed page (classroom_shared.proof)


def quantiles(values):
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return statistics.median(values), p95, values[-1]


def source(k, sources):
    """Phone ``k``'s source address: 127.0.0.(2 + k) spread over the loopback, or None."""
    n = k + 2
    return f"127.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}" if sources else None


def cpu_s(pids):
    return sum(proc_cpu_s(pid) for pid in pids)


async def lesson(url, pids, n_students, steady_s, timeout, sources=False):
    """One class of ``n_students`` in a new room: the figures as a dict."""
    proc_cpu = functools.partial(cpu_s, pids)
    async with Tab(url, "the lecturer", "", timeout) as lecturer:
        await lecturer.run_until("the Open-a-room button", widget="cls_open")
        before = await lecturer.run_until("the room's page", tap="cls_open", widget="cls_ask")
        code = lecturer.shown(before, "# ")[1][2:].strip()  # drawn before cls_ask
        await lecturer.run_until("the Reveal button", tap="cls_ask", widget="cls_reveal")
        phones = [
            Tab(url, f"phone {k}", f"room={code}", timeout, source=source(k, sources))
            for k in range(n_students)
        ]
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
            polls0, cpu0 = sum(p.polls for p in phones) + lecturer.polls, proc_cpu()
            load = os.getloadavg()[0]
            await asyncio.sleep(steady_s)
            polls = sum(p.polls for p in phones) + lecturer.polls - polls0
            cpu = proc_cpu() - cpu0
            polling(n_students, load, opened, steady_s, polls, cpu)
            before = [len(p.texts) for p in phones]
            cpu0, t0 = proc_cpu(), time.perf_counter()
            await lecturer.run(tap="cls_reveal")
            await asyncio.gather(
                *(
                    p.until(lambda p=p, b=b: p.shown(b, ANSWER_SHOWN), repr(ANSWER_SHOWN))
                    for p, b in zip(phones, before, strict=True)
                )
            )
            waits = [p.shown(b, ANSWER_SHOWN)[0] - t0 for p, b in zip(phones, before, strict=True)]
            reveal_cpu = proc_cpu() - cpu0
            exceptions = [e for tab in (lecturer, *phones) for e in tab.exceptions]
            replicas = collections.Counter(p.replica for p in phones)
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
        "replicas": replicas,
        "n": n_students,
        "measured": bool(pids),
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
    if f["measured"]:
        per_phone = f["reveal_cpu"] / f["n"] * 1000
        print(f"  server CPU for the reveal: {f['reveal_cpu']:.2f} s, {per_phone:.1f} ms a phone")
    if len(f["replicas"]) > 1 or None not in f["replicas"]:
        print(f"  phones per replica: {dict(f['replicas'])}")
    print(f"  taps repeated (not acknowledged in {RETAP_SECONDS} s): {f['retaps']}")
    print(f"  exceptions on the pages: {len(f['exceptions'])} {f['exceptions'][:2]}", flush=True)


def classes(sizes, steady_s, timeout, env, replicas=0, sources=False):
    """Every class size against one server (``replicas`` 0) or ``replicas`` behind nginx with
    one Redis, started with ``env`` added to their environment."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        with contextlib.ExitStack() as stack:
            if replicas:
                folder = stack.enter_context(tempfile.TemporaryDirectory())
                redis = redis_server(recipe=True, folder=folder)
                stack.enter_context(patched_env("ATTNVIZ_REDIS_URL", stack.enter_context(redis)))
                secret = os.environ.get("ATTNVIZ_SECRET") or secrets.token_hex(32)
                stack.enter_context(patched_env("ATTNVIZ_SECRET", secret))  # the replicas' own
                urls = [stack.enter_context(streamlit_server()) for _ in range(replicas)]
                url = stack.enter_context(nginx_proxy([u.split("//", 1)[1] for u in urls]))
            else:
                url = stack.enter_context(streamlit_server())
                urls = [url]
            pids = [server_pid(server_port(u)) for u in urls]
            against(url, pids, sizes, steady_s, timeout, sources)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def patched_env(name, value):
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def against(url, pids, sizes, steady_s, timeout, sources):
    """Every class size against the app at ``url`` whose servers are ``pids``."""
    for n in sizes:
        try:
            figures = asyncio.run(lesson(url, pids, n, steady_s, timeout, sources))
        except StalledError as exc:
            print(f"{n} phones: stalled. {exc}", flush=True)
            return
        report(figures)


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
    parser.add_argument("--replicas", type=int, default=0, help="replicas behind nginx, here")
    parser.add_argument("--base-url", default="", help="a deployment running elsewhere")
    parser.add_argument("--replica-ports", default="", help="its replicas' ports, on this host")
    parser.add_argument("--sources", action="store_true", help="a source address per phone")
    args = parser.parse_args()
    sizes = [int(n) for n in args.students.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    if args.base_url:
        ports = [int(p) for p in args.replica_ports.split(",") if p]
        pids = [server_pid(port) for port in ports]
        against(args.base_url.rstrip("/"), pids, sizes, args.steady, args.timeout, args.sources)
        return
    print("The app's configuration (runner.postScriptGC off):")
    classes(sizes, args.steady, args.timeout, {}, args.replicas, args.sources)
    if args.streamlit_gc:
        print("Streamlit's default (runner.postScriptGC on: a full collection after each run):")
        gc_sizes = [int(n) for n in args.streamlit_gc.split(",")]
        classes(gc_sizes, args.steady, args.timeout, {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"})


if __name__ == "__main__":
    main()
