"""What an innocent lecturer or student gets while someone abuses the server (issue 36).

Starts its own `streamlit run` on loopback and drives it with websocket clients that speak
Streamlit's protocol (benchmarks/links_memory.py's ``Client``: a rerun with the link's query,
a button's trigger; it keeps what the page said), no browser. Four scenarios, each printed
with the server's CPU seconds and RSS and the machine's load:

* ``rooms``: ``--rooms`` rooms opened from fresh sessions, all from one client address (as
  nginx's X-Forwarded-For says), then a real lecturer elsewhere presses "Open a room": what the
  flood was refused, and what the lecturer is told.
* ``training``: ``--tabs`` tabs each press Train at the largest training (3,000 steps, d_model
  48); then an innocent student's default training: how long it waited and took, against one
  attacker's training alone.
* ``chat``: the chat model loaded, then ``--burst`` distinct largest links of Inside a chat
  model at once (a 64-token prompt, 32 generated tokens); an innocent student's change on Step
  by step meanwhile, p50 / p95 / max, against the same change alone; with ``--finish S`` the
  burst's links then stay until each has drawn its page (at most S seconds), the innocent
  student changing d_k all along (its p50 / p95 over the whole burst), and the server's
  high-water RSS covers all of it.
* ``memory``: ``--rounds`` rounds of distinct max-size links of every heavy page, each in a new
  session (both models loaded); RSS after each page against ``limits.SERVER_MB``.

A benchmark, never a test: every loop has a fixed count, every wait a timeout.

    python benchmarks/abuse.py [--only rooms,training,chat,memory] [--rounds 4] [--burst 20]
        [--finish 900]
"""

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402  (a dependency of Streamlit)

from benchmarks.links_memory import MAX, Client, innocent_changes, summary, trigger  # noqa: E402
from benchmarks.links_memory import query as heavy_query  # noqa: E402
from benchmarks.student import proc_cpu_s  # noqa: E402
from tools.browser import server_pid, server_port, server_rss_mb, streamlit_server  # noqa: E402

CHAT_BURST_MB = 800  # what README.md and deploy/README.md ask for a server in long use
FLOOD_ADDRESS = "203.0.113.66"  # documentation addresses (RFC 5737)
LECTURER_ADDRESS = "198.51.100.7"
WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "cats")
GPT_MAX = {"gpt_task": "previous", "gpt_steps": 3000, "gpt_dmodel": 48, "gpt_layers": 1}  # 17 s
MEMORY_PAGES = (
    "Step_by_step",
    "Why_scale",
    "Multi_head",
    "Real_model",
    "Inside_a_chat_model",
    "Masks_and_temperature",
    "Tiled_attention",
    "Attention_as_geometry",
)


class ForwardedClient(Client):
    """A tab whose requests come from client ``address``, as nginx in front would say
    (X-Forwarded-For: the server is on loopback, so ui/visitor.client_address reads it)."""

    def __init__(self, base, address):
        super().__init__(base)
        self.address = address

    async def connect(self):
        self.ws = await connect(
            f"{self.base}/_stcore/stream",
            open_timeout=60,
            max_size=None,
            compression=None,
            additional_headers={"X-Forwarded-For": self.address},
        )


async def tab(base, address=None):
    client = Client(base) if address is None else ForwardedClient(base, address)
    await client.connect()
    return client


def load():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def scenario_args(parser, scenarios):
    """The run's arguments: ``parser``'s own, and the two of every abuse benchmark, ``--only``
    (a comma-separated choice of ``scenarios``, all by default: ``args.only`` a list) and
    ``--root``. Prints the report's first line: the checkout, when, the cores and their load."""
    parser.add_argument("--only", default=",".join(scenarios))
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve")
    args = parser.parse_args()
    args.only = [s for s in args.only.split(",") if s]
    print(
        f"{args.root} at {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load {load()}"
    )
    return args


class Meter:
    """The server's CPU seconds and RSS over a scenario."""

    def __init__(self, port):
        self.port, self.pid = port, server_pid(port)
        self.cpu, self.peak = proc_cpu_s(self.pid), server_rss_mb(port)

    def sample(self):
        self.peak = max(self.peak, server_rss_mb(self.port))

    def line(self):
        self.sample()
        cpu = proc_cpu_s(self.pid) - self.cpu
        now = server_rss_mb(self.port)
        return f"server CPU {cpu:.0f} s, RSS {now:.0f} MB (peak {self.peak:.0f}), load {load()}"


async def sampling(meter, stop):
    while not stop.is_set():
        meter.sample()
        await asyncio.sleep(0.5)


async def press(base, page, query, key, address=None):
    client = await tab(base, address)
    await client.rerun(page, urlencode(query))
    seconds = await client.rerun(page, urlencode(query), [trigger(client.buttons[key])])
    return client, seconds


async def rooms(base, port, args):
    meter = Meter(port)
    opened, refused = 0, {}  # how often the flood was told each refusal
    for _ in range(args.rooms):
        client, _ = await press(base, "Classroom", {}, "cls_open", FLOOD_ADDRESS)
        if "cls_ask" in client.buttons:  # the lecturer's controls: a room opened
            opened += 1
        else:
            said = " | ".join(client.alerts)
            refused[said] = refused.get(said, 0) + 1
        await client.close()
    print(f"rooms: {args.rooms} opens from fresh sessions at {FLOOD_ADDRESS}: {opened} opened")
    for said, times in refused.items():
        print(f"rooms:   refused {times} times: {said}")
    lecturer, _ = await press(base, "Classroom", {}, "cls_open", LECTURER_ADDRESS)
    if "cls_ask" in lecturer.buttons:
        said = "a room opened: a lecturer can still open a room"
    else:
        said = "refused: " + " | ".join(lecturer.alerts)
    await lecturer.close()
    print(f"rooms: a real lecturer at {LECTURER_ADDRESS} then got: {said}")
    print(f"rooms: {meter.line()}", flush=True)


async def training(base, port, args):
    meter = Meter(port)
    alone_client, alone = await press(
        base, "Watch_a_head_learn", GPT_MAX | {"seed": 1}, "gpt_train"
    )
    await alone_client.close()
    print(f"training: one largest training alone: {alone:.1f} s", flush=True)
    stop = asyncio.Event()
    watcher = asyncio.ensure_future(sampling(meter, stop))
    tabs = [await tab(base) for _ in range(args.tabs)]
    attacks = []
    for k, client in enumerate(tabs):
        q = urlencode(GPT_MAX | {"seed": 10 + k})
        await client.rerun("Watch_a_head_learn", q)
        train = [trigger(client.buttons["gpt_train"])]
        attacks.append(asyncio.ensure_future(client.rerun("Watch_a_head_learn", q, train)))
    await asyncio.sleep(3)  # the tabs have pressed Train
    student, took = await press(
        base, "Watch_a_head_learn", {"gpt_task": "induction", "seed": 7}, "gpt_train"
    )
    told = [a for a in student.alerts if "Waiting" in a or "Not started" in a or "refused" in a]
    print(
        f"training: an innocent student's default training (induction, 600 steps) after "
        f"{args.tabs} tabs pressed Train: waited {student.waited:.1f} s, done in {took:.1f} s "
        f"(one largest training alone: {alone:.1f} s); told: {' | '.join(told) or 'nothing'}",
        flush=True,
    )
    await student.close()
    medium, took = await press(
        base, "Watch_a_head_learn", GPT_MAX | {"gpt_steps": 1500, "seed": 8}, "gpt_train"
    )
    print(
        f"training: an innocent 1,500-step training (large lane) meanwhile: waited "
        f"{medium.waited:.1f} s, done in {took:.1f} s",
        flush=True,
    )
    await medium.close()
    refused = sum(any("Not started" in a for a in c.alerts) for c in tabs)
    print(f"training: of the {args.tabs} tabs, {refused} were refused at once so far")
    for task, client in zip(attacks, tabs, strict=True):  # the attacker leaves
        task.cancel()
        await client.close()
    stop.set()
    await watcher
    print(f"training: {meter.line()}", flush=True)


def chat_query(k):
    rng = np.random.default_rng(k)
    return {"prompt": " ".join(rng.choice(WORDS, 80)), "generate": 32}


async def chat(base, port, args):
    warm = await tab(base)  # the model loaded (once per server), as on a server in use
    await warm.rerun("Inside_a_chat_model", "")
    await warm.close()
    meter = Meter(port)
    alone = await innocent_changes(base, args.changes, None)
    print(f"chat: an innocent change alone: {summary(alone)}", flush=True)
    stop = asyncio.Event()
    watcher = asyncio.ensure_future(sampling(meter, stop))
    finished = []

    async def one(k):
        client = await tab(base)
        try:
            finished.append(await client.rerun("Inside_a_chat_model", urlencode(chat_query(k))))
        finally:
            await client.close()

    burst = [asyncio.ensure_future(one(k)) for k in range(args.burst)]
    await asyncio.sleep(2)
    during = await innocent_changes(base, args.changes, None)
    print(f"chat: the same during {args.burst} largest chat links at once: {summary(during)}")
    print(f"chat: {len(finished)} of the burst's links had finished by then", flush=True)
    if args.finish:  # the burst's links stay until each has drawn its page (the run)
        done = asyncio.Event()  # the innocent student goes on changing d_k until then
        changes = asyncio.ensure_future(innocent_changes(base, 100_000, done))
        await asyncio.wait(burst, timeout=args.finish)
        done.set()
        whole = await changes
        print(f"chat: {len(finished)} of {args.burst} finished within {args.finish} s", flush=True)
        print(f"chat: the innocent change over the whole burst: {summary(whole)}", flush=True)
        during = whole
    for task in burst:  # the attacker leaves: the queue drops what still waits
        task.cancel()
    await asyncio.gather(*burst, return_exceptions=True)
    stop.set()
    await watcher
    print(f"chat: {meter.line()}", flush=True)
    ratio = np.percentile(during, 95) / np.percentile(alone, 95) if during and alone else np.nan
    verdict = "under" if meter.peak < CHAT_BURST_MB else "OVER"
    print(
        f"chat: the innocent p95 {ratio:.1f}x its p95 alone (goal: within 2x); high-water "
        f"{meter.peak:.0f} MB, {verdict} the {CHAT_BURST_MB} MB a replica is given (deploy/)",
        flush=True,
    )


def memory_query(page, k):
    if page in ("Step_by_step", "Multi_head", "Real_model"):
        return heavy_query(page, k)
    if page == "Inside_a_chat_model":
        return chat_query(10_000 + k)
    if page == "Attention_as_geometry":
        return {"geo_dk": 512, "seed": 2000 + k}
    return MAX | {"seed": 3000 + k}


async def memory(base, port, args):
    from attnviz.limits import SERVER_MB

    meter = Meter(port)
    for r in range(args.rounds):
        for page in MEMORY_PAGES:
            client = await tab(base)
            await client.rerun(page, urlencode(memory_query(page, r)))
            await client.close()
            meter.sample()
        print(
            f"memory: round {r + 1}: RSS {server_rss_mb(port):.0f} MB, high-water "
            f"{meter.peak:.0f} MB (budget {SERVER_MB} MB)",
            flush=True,
        )
    verdict = "under" if meter.peak <= SERVER_MB else "OVER"
    print(f"memory: {meter.line()}; the high-water mark is {verdict} the budget")


SCENARIOS = {"rooms": rooms, "training": training, "chat": chat, "memory": memory}


async def run(base, port, args):
    await innocent_changes(base, 1, None)  # the server warm
    print(f"server after warming up: {server_rss_mb(port):.0f} MB, load {load()}", flush=True)
    for name in args.only:
        await SCENARIOS[name](base, port, args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--tabs", type=int, default=7)
    parser.add_argument("--burst", type=int, default=20)
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument(
        "--finish", type=int, default=0, help="chat: wait up to this many seconds for the burst"
    )
    parser.add_argument("--rounds", type=int, default=4)
    args = scenario_args(parser, SCENARIOS)
    with streamlit_server(root=args.root) as url:
        asyncio.run(run(url, server_port(url), args))


if __name__ == "__main__":
    main()
