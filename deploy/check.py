"""Check a deployment of attnviz (deploy/README.md) end to end, through its proxy.

    python deploy/check.py https://attnviz.example.org [--insecure] [--timeout 90]
                           [--passphrase TEXT]

1. ``/api/health`` answers through the proxy, 200 with ``"status": "ok"`` (a replica runs and
   its room store takes changes; its JSON otherwise says what is wrong);
2. a lecturer opens a Classroom room and asks its first question;
3. two phones join it, each sent by nginx to a different replica (a random ``attnviz_replica``
   cookie each, until two replicas have answered: nginx names the replica in the
   X-Attnviz-Replica header), and each taps an answer;
4. the lecturer's count reads back "2 of 2" (the answers met in the one Redis);
5. the room is closed.

It prints each step and ends with OK (exit status 0), or with what failed (exit status 1).
``--insecure`` accepts a certificate that does not verify (a test certificate);
``--passphrase`` is the staff passphrase when the site asks one (ATTNVIZ_STAFF_PASSPHRASE; by
default that variable's value in the check's own environment). It speaks
Streamlit's own protocol over the WebSocket, as a browser tab does (tools/streamlit_client.py):
no browser is needed on the server.
"""

import argparse
import asyncio
import json
import os
import secrets
import ssl
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.streamlit_client import StalledError, Tab

MOST_TRIES = 24  # cookies tried to reach two replicas (two replicas: 1 in 2**23 to fail)


def health(base, context):
    """(HTTP status, the JSON of /api/health, or None when the answer is no JSON)."""
    try:
        with urllib.request.urlopen(f"{base}/api/health", timeout=10, context=context) as r:
            status, body = r.status, r.read()
    except urllib.error.HTTPError as exc:  # 503: the store is away; its JSON says how
        status, body = exc.code, exc.read()
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def health_problem(status, answer):
    """Why /api/health's answer is not a running replica with a working store, or None."""
    if not isinstance(answer, dict):
        return f"answered {status} without JSON: is this attnviz's App (streamlit run app.py)?"
    store = answer.get("store") or {}
    if status != 200 or answer.get("status") != "ok":
        return f"answered {status}: {answer.get('status')}: {store.get('detail', '')}"
    return None


async def phones_on_two_replicas(base, code, timeout, insecure):
    """Two phone tabs in room ``code`` on two different replicas (or two tabs, if the proxy
    does not name its replicas), connected."""
    kept, replicas = [], set()
    for k in range(MOST_TRIES):
        cookie = f"attnviz_replica={secrets.token_hex(16)}"
        tab = Tab(base, f"phone {k + 1}", f"room={code}", timeout, cookie, insecure=insecure)
        await tab.__aenter__()
        if tab.replica is None or tab.replica not in replicas:
            replicas.add(tab.replica)
            kept.append(tab)
            if len(kept) == 2:
                return kept
        else:
            await tab.__aexit__()
    for tab in kept:
        await tab.__aexit__()
    raise StalledError(f"{MOST_TRIES} phones all reached {replicas}: is there one replica only?")


async def check(base, timeout, insecure, passphrase=""):
    async with Tab(base, "the lecturer", "", timeout, insecure=insecure) as lecturer:
        await lecturer.run_until("the Open-a-room button", widget="cls_open")
        strings = None
        if "cls_passphrase" in lecturer.widgets:  # the site asks for the staff passphrase
            if not passphrase:
                raise StalledError(
                    "the site asks for the staff passphrase to open a room: give it with "
                    "--passphrase (or ATTNVIZ_STAFF_PASSPHRASE in this shell)"
                )
            strings = {"cls_passphrase": passphrase}
        before = await lecturer.run_until(
            "the room's page", tap="cls_open", widget="cls_ask", strings=strings
        )
        code = lecturer.shown(before, "# ")[1][2:].strip()
        await lecturer.run_until("the Reveal button", tap="cls_ask", widget="cls_reveal")
        print(f"2. room {code} opened on {lecturer.replica or 'a replica'}, a question asked")
        phones = await phones_on_two_replicas(base, code, timeout, insecure)
        try:
            for k, phone in enumerate(phones):
                await phone.run_until("the question", starts="Tap your answer")
                await phone.run_until("the answer taken", f"cls_opt_{k}", starts="Your answer")
                print(f"3. {phone.name} answered on {phone.replica or 'a replica'}")
            since = len(lecturer.texts)
            await lecturer.until(
                lambda: lecturer.shown(since, "Answered: 2 of 2"), "the count 2 of 2"
            )
            print("4. the lecturer's count reads back: Answered 2 of 2")
        finally:
            for phone in phones:
                await phone.__aexit__()
        await lecturer.run_until("the room closed", tap="cls_close", starts=f"Room {code}")
        print(f"5. room {code} closed")
        return [phone.replica for phone in phones]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the address phones open, e.g. https://attnviz.example.org")
    parser.add_argument("--insecure", action="store_true", help="accept any certificate")
    parser.add_argument("--timeout", type=float, default=90.0, help="longest wait (s)")
    parser.add_argument(
        "--passphrase",
        default=os.environ.get("ATTNVIZ_STAFF_PASSPHRASE", ""),
        help="the staff passphrase, when the site asks one to open a room",
    )
    args = parser.parse_args()
    base = args.base.rstrip("/")
    context = ssl._create_unverified_context() if args.insecure else None
    try:
        status, answer = health(base, context)
    except OSError as exc:
        sys.exit(f"FAILED: {base}/api/health cannot be reached: {exc}")
    problem = health_problem(status, answer)
    if problem:
        sys.exit(f"FAILED: {base}/api/health {problem}")
    store = answer["store"]
    print(f"1. {base}/api/health: ok (the room store: {store['kind']}, {store['detail']})")
    try:
        replicas = asyncio.run(check(base, args.timeout, args.insecure, args.passphrase))
    except (StalledError, OSError) as exc:
        sys.exit(f"FAILED: {exc}")
    print(f"OK: answers from {' and '.join(str(r) for r in replicas)} met in one room")


if __name__ == "__main__":
    main()
