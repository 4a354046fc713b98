"""``GET /api/health``: how this server is, as JSON, for nginx, ``deploy/check.py`` and a
monitor; and the room store opened at start (the App's lifespan).

    {"status": "ok" | "store unreachable" | "store refusing",
     "process": {"pid", "uptime_s", "python"},
     "store": {"kind": "in-process" | "redis", "state": "ok" | "refusing" | "unreachable",
               "detail": a sentence},
     "caches": {"MB", "max_MB"}, "rss_MB"}

The answer is 200 when the store takes answers, else 503 (the lesson pages still work then, the
classroom does not). The store is asked with a small write (``RoomStore.ping``) in a worker
thread, and counted unreachable when it has not answered within HEALTH_STORE_SECONDS.
"""

import asyncio
import os
import platform
import sys
import time
from urllib.parse import urlsplit, urlunsplit

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from attnviz.classroom import (
    LESSONS_UNAFFECTED,
    REDIS_URL_VARIABLE,
    StoreRefusedError,
    StoreUnavailableError,
)
from attnviz.limits import HEALTH_STORE_SECONDS, STORE_START_SECONDS
from attnviz.serve.classroom import ROOM_STORE
from attnviz.serve.store import cache_report, rss_mb

STARTED = time.monotonic()


def store_state(store):
    """(state, detail) of ``store`` now: "ok", "refusing" or "unreachable", and a sentence.
    Blocking: Redis is asked (its client gives up after its own timeout)."""
    if store.in_process:
        return "ok", "In this server's memory: a restart of the server ends its rooms."
    try:
        store.ping()
    except StoreRefusedError as exc:
        return "refusing", f"Redis answers but refuses to save changes ({exc.reason})."
    except StoreUnavailableError:
        return "unreachable", "Redis cannot be reached: phones cannot join or answer."
    return "ok", "Redis answers and saves changes."


async def health(_request):
    """The JSON above."""
    try:
        store = ROOM_STORE.get()
    except StoreUnavailableError as exc:  # a bad URL: the lifespan stops the server first
        kind, (state, detail) = "redis", ("unreachable", str(exc))
    else:
        kind = "in-process" if store.in_process else "redis"
        try:
            state, detail = await asyncio.wait_for(
                run_in_threadpool(store_state, store), HEALTH_STORE_SECONDS
            )
        except TimeoutError:
            state = "unreachable"
            detail = f"Redis has not answered within {HEALTH_STORE_SECONDS:g} s."
    total = next(row for row in cache_report() if row["cache"].startswith("all"))
    body = {
        "status": "ok" if state == "ok" else f"store {state}",
        "process": {
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - STARTED, 1),
            "python": platform.python_version(),
        },
        "store": {"kind": kind, "state": state, "detail": detail},
        "caches": {"MB": round(total["MB"], 1), "max_MB": total["max_MB"]},
        "rss_MB": None if (rss := rss_mb()) is None else round(rss, 1),
    }
    return JSONResponse(body, status_code=200 if state == "ok" else 503)


ROUTES = [Route("/api/health", health, methods=["GET"])]


def shown_url(url):
    """``url`` without its password, for a message."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def open_store(wait=STORE_START_SECONDS, environ=None):
    """Make the server's room store and ask it once, waiting up to ``wait`` seconds for a Redis
    that is starting; when ATTNVIZ_REDIS_URL cannot be used, ``stop`` the server with one
    sentence (a supervisor such as systemd starts it again)."""
    environ = os.environ if environ is None else environ
    try:
        store = ROOM_STORE.get()
    except StoreUnavailableError as exc:  # malformed URL, or no secret to sign rooms with
        return stop(f"attnviz does not start: {str(exc).removesuffix(LESSONS_UNAFFECTED).strip()}")
    deadline = time.monotonic() + wait
    while True:
        state, _ = store_state(store)
        if state != "unreachable":
            return store  # "refusing" still serves reads: the health route says so
        if time.monotonic() >= deadline:
            url = shown_url(environ.get(REDIS_URL_VARIABLE, ""))
            return stop(
                f"attnviz does not start: {REDIS_URL_VARIABLE}={url} has not answered in "
                f"{wait} s. Check the URL and that redis-server runs there."
            )
        time.sleep(0.25)


def stop(sentence):
    """End the process at start with ``sentence`` on stderr and no traceback (uvicorn logs
    a traceback for any exception its lifespan raises, SystemExit included)."""
    print(sentence, file=sys.stderr, flush=True)
    os._exit(3)
