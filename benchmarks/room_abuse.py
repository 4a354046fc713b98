"""What an innocent lecturer or student gets while someone abuses the classroom's rules (#45).

``joins``, ``guesses`` and ``flood`` start their own `streamlit run` on loopback and drive it
with websocket clients that speak Streamlit's protocol (benchmarks/links_memory.py's
``Client``), each request from the client address that nginx's X-Forwarded-For would give; a
script's "browser" is a session without a cookie (the server makes it an id of its own), or
with a new cookie each time; a real student keeps its cookie. ``caps`` and ``networks`` replay
against the store itself, with a clock (the attack is on the rules, not the server's CPU):

* ``joins``: a lecturer opens a room and asks; three real students elsewhere answer; a script
  from one address joins ``--joins`` times, answering each time, without a cookie and (in a
  second room) with a new cookie each time: how many joined and answered, what the script was
  told, what the lecturer's panel says; then the lecturer locks the room: the script's further
  joins, a real student's reload, a newcomer; then "Keep only those who answered".
* ``guesses``: 60 wrong codes from one address, the 61st, then the right code from it.
* ``flood``: ``--flood`` opens from fresh sessions at 26 addresses 127.0.0.2-27 (one /24),
  then a lecturer elsewhere opens a room: what the flood got, what the lecturer got.
* ``caps``: 11 rooms opened and closed from one network (the store, the opens a minute kept).
* ``networks``: a flood from 26 networks (each at its limits) fills the store's rooms; then a
  lecturer opens one: what ended to make room.

A benchmark, never a test: every loop has a fixed count, every wait a timeout.

    python benchmarks/room_abuse.py [--only joins,guesses,flood,caps,networks] [--joins 500]
"""

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402  (a dependency of Streamlit)

from benchmarks.abuse import Meter, scenario_args  # noqa: E402
from benchmarks.links_memory import Client, trigger  # noqa: E402
from tools.browser import server_port, streamlit_server  # noqa: E402

SCRIPT_ADDRESS = "203.0.113.66"  # documentation addresses (RFC 5737)
LECTURER_ADDRESS = "198.51.100.7"
CLASS_NETWORK = "192.0.2."  # the real students' Wi-Fi
EXAMPLE = {"tokens": "the cat sat on the mat", "d_model": 8, "d_k": 4}


class Browser(Client):
    """A tab at client ``address`` with the browser id ``cookie`` (None: none sent, so the
    server makes the session an id of its own)."""

    def __init__(self, base, address, cookie=None):
        super().__init__(base)
        self.address, self.cookie = address, cookie

    async def connect(self):
        headers = {"X-Forwarded-For": self.address}
        if self.cookie:
            headers["Cookie"] = f"attnviz_browser={self.cookie}"
        self.ws = await connect(
            f"{self.base}/_stcore/stream",
            open_timeout=60,
            max_size=None,
            compression=None,
            additional_headers=headers,
        )

    async def go(self, query=None, key=None):
        """Rerun the Classroom page with ``query`` (and press button ``key``)."""
        q = urlencode(query or {})
        await self.rerun("Classroom", q, [trigger(self.buttons[key])] if key else ())


def new_id():
    from attnviz.links.classroom import new_sid

    return new_sid()


async def browser(base, address, cookie=None, query=None):
    client = Browser(base, address, cookie)
    await client.connect()
    await client.go(query)
    return client


def panel(lecturer):
    """The lines of the lecturer's panel: the joins, a burst's warning, the health."""
    lines = [t for t in lecturer.texts if t.startswith("**Joining:**") or "Answers in" in t]
    lines += [a for a in lecturer.alerts if "came from one network" in a]
    return " | ".join(line.replace("  \n", "; ") for line in lines)


async def a_room(base):
    """A lecturer's tab with a room open and a question asked, and the room's code."""
    lecturer = await browser(base, LECTURER_ADDRESS, new_id())
    await lecturer.go(key="cls_open")
    await lecturer.go(key="cls_ask")
    code = next(t for t in lecturer.texts if t.startswith("# ")).removeprefix("# ").strip()
    return lecturer, code


async def script_joins(base, code, n, cookies):
    """``n`` joins of one script at SCRIPT_ADDRESS, answering when in: (joined, refusals)."""
    joined, refused = 0, {}
    for _ in range(n):
        client = await browser(base, SCRIPT_ADDRESS, new_id() if cookies else None, {"room": code})
        if "cls_opt_0" in client.buttons:
            joined += 1
            await client.go({"room": code, "joined": 1}, "cls_opt_0")
        else:
            said = " | ".join(client.alerts)[:160]
            refused[said] = refused.get(said, 0) + 1
        await client.close()
    return joined, refused


async def joins(base, port, args):
    students = {f"{CLASS_NETWORK}{k + 10}": new_id() for k in range(3)}
    for cookies in (False, True):
        mode = "a new cookie each time" if cookies else "no cookie"
        meter = Meter(port)
        lecturer, code = await a_room(base)
        for address, cookie in students.items():
            phone = await browser(base, address, cookie, {"room": code})
            await phone.go({"room": code, "joined": 1}, "cls_opt_1")
            await phone.close()
        start = time.perf_counter()
        joined, refused = await script_joins(base, code, args.joins, cookies)
        took = time.perf_counter() - start
        print(
            f"joins ({mode}): {args.joins} joins from {SCRIPT_ADDRESS} in {took:.1f} s: "
            f"{joined} joined and answered"
        )
        for said, times in refused.items():
            print(f"joins ({mode}):   refused {times} times: {said}")
        await lecturer.go()
        print(f"joins ({mode}): the lecturer's panel: {panel(lecturer)}")
        late = await browser(base, f"{CLASS_NETWORK}99", new_id(), {"room": code})
        print(
            f"joins ({mode}): a late student of the class then: "
            f"{'joined' if 'cls_opt_0' in late.buttons else ' | '.join(late.alerts)}"
        )
        await late.close()
        await lecturer.go(key="cls_lock")
        more, said = await script_joins(base, code, 50, cookies)
        print(f"joins ({mode}): locked: 50 more joins from the script: {more} joined; {said}")
        address, cookie = next(iter(students.items()))
        back = await browser(base, address, cookie, {"room": code, "joined": 1})
        newcomer = await browser(base, f"{CLASS_NETWORK}98", new_id(), {"room": code})
        print(
            f"joins ({mode}): locked: a student's reload "
            f"{'is in' if 'cls_opt_0' in back.buttons else 'refused'}; a newcomer: "
            f"{'joined' if 'cls_opt_0' in newcomer.buttons else ' | '.join(newcomer.alerts)}"
        )
        await lecturer.go(key="cls_keep_answered")
        await lecturer.go()
        print(f"joins ({mode}): 'Keep only those who answered' then: {panel(lecturer)}")
        await lecturer.go(key="cls_next")  # the next question: only who is here answers it
        for address, cookie in students.items():
            phone = await browser(base, address, cookie, {"room": code, "joined": 1})
            await phone.go({"room": code, "joined": 1}, "cls_opt_0")
            await phone.close()
        await lecturer.go(key="cls_keep_answered")
        await lecturer.go()
        print(f"joins ({mode}): the next question, then keep who answered it: {panel(lecturer)}")
        print(f"joins ({mode}): {meter.line()}", flush=True)
        await lecturer.go(key="cls_close")
        for client in (back, newcomer, lecturer):
            await client.close()


async def guesses(base, port, args):
    lecturer, code = await a_room(base)
    wrong = [f"ABCD{a}{b}" for a in "EFGH" for b in "23456789ABCDEFGH"][:61]
    wrong = [c for c in wrong if c != code][:61]
    told = {}
    for k, guess in enumerate(wrong):
        client = await browser(base, "203.0.113.77", None, {"room": guess})
        said = re.sub(r"the code [A-Z0-9]{6}", "the code (the guess)", " | ".join(client.alerts))
        told.setdefault(said[:120], []).append(k + 1)
        await client.close()
    for said, tries in told.items():
        print(f"guesses: tries {tries[0]}-{tries[-1]} of 61 wrong codes from 203.0.113.77: {said}")
    right = await browser(base, "203.0.113.77", None, {"room": code})
    print(
        f"guesses: then the right code from the same address: "
        f"{'joined' if 'cls_opt_0' in right.buttons else ' | '.join(right.alerts)}"
    )
    await right.close()
    await lecturer.go(key="cls_close")
    await lecturer.close()


async def flood(base, port, args):
    meter = Meter(port)
    opened, refused = 0, {}
    for k in range(args.flood):
        client = await browser(base, f"127.0.0.{2 + k % 26}")
        await client.go(key="cls_open")
        if "cls_ask" in client.buttons:
            opened += 1
        else:
            said = " | ".join(client.alerts)[:160]
            refused[said] = refused.get(said, 0) + 1
        await client.close()
    print(f"flood: {args.flood} opens from 26 addresses 127.0.0.2-27: {opened} opened")
    for said, times in refused.items():
        print(f"flood:   refused {times} times: {said}")
    lecturer = await browser(base, LECTURER_ADDRESS, new_id())
    await lecturer.go(key="cls_open")
    got = "a room opened" if "cls_ask" in lecturer.buttons else " | ".join(lecturer.alerts)
    print(f"flood: then a lecturer at {LECTURER_ADDRESS} got: {got}")
    print(f"flood: {meter.line()}", flush=True)
    await lecturer.close()


class Clock:
    def __init__(self):
        self.now = time.time()

    def __call__(self):
        return self.now


def caps(args):
    from attnviz.classroom import MemoryStore, RoomError

    for close in (False, True):
        clock = Clock()
        store = MemoryStore(clock=clock)
        told = None
        for k in range(11):
            clock.now += 61 if k % 6 == 0 else 1  # within the opens a minute (6)
            try:
                room, key = store.open(EXAMPLE, f"lecturer{k}", f"198.51.100.{k + 1}")
            except RoomError as exc:
                told = str(exc)
                break
            store.join(room.code, "s1")
            if close:
                store.close(room.code, key)
        what = "opened and closed" if close else "opened (none closed)"
        print(
            f"caps: 11 rooms {what} from one network: the 11th "
            f"{'was refused: ' + told if told else 'opened'}"
        )


def is_open(store, code):
    from attnviz.classroom import RoomError

    try:
        return not store.room(code).closed
    except RoomError:
        return False


def networks(args):
    from attnviz.classroom import MemoryStore, RoomError
    from attnviz.limits import MAX_ROOMS

    clock = Clock()
    store = MemoryStore(clock=clock)
    flood_rooms, refused = [], 0

    def flood_for(minutes):
        nonlocal refused
        for _ in range(minutes):
            clock.now += 60
            for net in range(26):
                for k in range(6):  # the opens a minute one network may make
                    try:
                        room, _ = store.open(EXAMPLE, f"flood{net}-{k}", f"10.{net}.0.{k}")
                        flood_rooms.append(room.code)
                    except RoomError:
                        refused += 1

    flood_for(4)
    open_now = sum(is_open(store, code) for code in flood_rooms)
    print(
        f"networks: 26 networks opened {len(flood_rooms)} rooms in 4 minutes ({refused} "
        f"refused), {open_now} open at once (the store keeps {MAX_ROOMS})"
    )
    room, _ = store.open(EXAMPLE, "innocent", LECTURER_ADDRESS)
    flood_for(10)
    ended = [c for c in flood_rooms if store.record(c) and store.record(c).evicted]
    print(
        f"networks: then a lecturer at {LECTURER_ADDRESS} got room {room.code}; after 10 more "
        f"minutes of the flood (nobody joined it yet) it is "
        f"{'still open' if is_open(store, room.code) else 'ended'}; {len(ended)} flood rooms "
        "ended to make room in all"
    )


SERVED = {"joins": joins, "guesses": guesses, "flood": flood}
STORE = {"caps": caps, "networks": networks}


async def run(base, port, args):
    for name in args.only:
        if name in SERVED:
            await SERVED[name](base, port, args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--joins", type=int, default=500)
    parser.add_argument("--flood", type=int, default=40)
    args = scenario_args(parser, [*SERVED, *STORE])
    for name in args.only:
        if name in STORE:
            STORE[name](args)
    if any(name in SERVED for name in args.only):
        with streamlit_server(root=args.root) as url:
            asyncio.run(run(url, server_port(url), args))


if __name__ == "__main__":
    main()
