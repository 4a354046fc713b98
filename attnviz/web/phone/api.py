"""The room's API for the light phone page: the same store methods as the Streamlit phone
(attnviz/ui/pages/classroom_student.py), so the same rules (one browser one vote, the limits
per browser and address, the rounds that take answers, a closed room).

    GET  /api/rooms/{code}/version          {"version": n | "ended" | "next:CODE"} (a poll)
    GET  /api/rooms/{code}/state?seen=n     this phone's state (serve/phone.py); with ``seen``
                                            the room's version the phone shows, it waits up to
                                            PHONE_WAIT_SECONDS for another (a long poll), and
                                            says {"version": n, "same": true} if none came
    POST /api/rooms/{code}/join             {}                   -> {"code": the room's code}
    POST /api/rooms/{code}/answer           {"option": k}
    POST /api/rooms/{code}/confidence       {"level": k}
    POST /api/rooms/{code}/sketch           {"levels": [k, ...]}
    POST /api/rooms/{code}/lost             {}                   -> {"note": a sentence}

The student is the browser: its id from the HttpOnly cookie that the App's middleware sets
(attnviz/web/cookies.py). A POST must come from this site's own page (its ``Origin``), be JSON
and at most MAX_PHONE_BODY_BYTES; every refusal is {"error": a sentence the phone shows}.
"""

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from attnviz.classroom import RoomError, StoreUnavailableError
from attnviz.classroom.lifecycle import ENDED
from attnviz.classroom.room import RateLimitedError, RoomNotFoundError
from attnviz.limits import MAX_PHONE_BODY_BYTES, PHONE_WAIT_SECONDS
from attnviz.links.classroom import BROWSER_COOKIE, SID_PATTERN
from attnviz.serve.classroom import ROOM_STORE
from attnviz.serve.phone import shared_bytes
from attnviz.serve.phone_state import state_bytes
from attnviz.web.phone.watch import Watch

LOOPBACK = {None, "", "127.0.0.1", "::1"}
# The store's calls that wait on Redis, and the first making of a room state's shared part, run
# here: a few threads (not Starlette's pool of 28, which 250 phones waking at once fill, each
# thread then contending for the GIL), so a reveal's requests queue instead of thrashing
STORE_THREADS = ThreadPoolExecutor(4, thread_name_prefix="attnviz-room")
NO_STORE = {"Cache-Control": "no-store"}


class RefusedError(Exception):
    """A request refused: its HTTP status and the sentence the phone shows."""

    def __init__(self, status, sentence):
        super().__init__(sentence)
        self.status = status


def refusal(status, sentence):
    return JSONResponse({"error": sentence}, status_code=status, headers=NO_STORE)


def browser(request):
    """The browser's id (the student), from its cookie; RefusedError when it sent none."""
    sid = request.cookies.get(BROWSER_COOKIE)
    if not isinstance(sid, str) or not SID_PATTERN.fullmatch(sid):
        raise RefusedError(
            400, "This browser sent no id: allow cookies for this site, then reload the page."
        )
    return sid


def client_address(request):
    """The client's address: the TCP peer's, or, when the peer is this machine (nginx in
    front, as deploy/ sets it up), the X-Forwarded-For that nginx writes; "this machine" when
    both are loopback (as ``ui.visitor.client_address``)."""
    peer = request.client.host if request.client else None
    if peer not in LOOPBACK:
        return peer
    forwarded = request.headers.get("x-forwarded-for", "").split(",")[-1].strip()
    return forwarded if forwarded not in LOOPBACK else "this machine"


def own_origin(request):
    """This site's origin as the browser sees it: the scheme (https behind nginx when it says
    so) and the Host header."""
    https = request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https"
    return f"{'https' if https else 'http'}://{request.headers.get('host', '')}"


async def body_of(request):
    """The POST's JSON object; RefusedError unless it comes from this site's page (Origin), is JSON
    and at most MAX_PHONE_BODY_BYTES."""
    origin = request.headers.get("origin")
    if origin != own_origin(request):
        raise RefusedError(403, "Refused: this did not come from the room's own page on this site.")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise RefusedError(415, "An answer is sent as JSON by the room's page.")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_PHONE_BODY_BYTES):
        raise RefusedError(413, f"An answer is at most {MAX_PHONE_BODY_BYTES} bytes.")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_PHONE_BODY_BYTES:
            raise RefusedError(413, f"An answer is at most {MAX_PHONE_BODY_BYTES} bytes.")
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise RefusedError(400, "The answer could not be read: reload the page.") from None
    if not isinstance(body, dict):
        raise RefusedError(400, "The answer could not be read: reload the page.")
    return body


def whole(body, name, what):
    """``body[name]`` as an int (not a bool, not a float); RefusedError otherwise."""
    value = body.get(name)
    if type(value) is not int:
        raise RefusedError(400, f"{what} is a whole number.")
    return value


async def in_thread(fn, *args):
    """``fn(*args)`` in one of STORE_THREADS."""
    return await asyncio.get_running_loop().run_in_executor(STORE_THREADS, fn, *args)


async def call(fn, *args):
    """``fn(*args)`` on the store: at once when it lives in this process (a few microseconds
    under its lock), in a worker thread for Redis (a network round trip)."""
    if ROOM_STORE.get().in_process:
        return fn(*args)
    return await in_thread(fn, *args)


def status_of(exc):
    """The HTTP status of a store's refusal."""
    if isinstance(exc, StoreUnavailableError):
        return 503
    if isinstance(exc, RateLimitedError):
        return 429
    if isinstance(exc, RoomNotFoundError):
        return 404
    return 409


def endpoint(handler):
    """``handler(request, store, code, sid)`` as a route: the browser's id read, and every
    refusal (its own, the store's RoomError) one sentence as JSON."""

    async def route(request):
        try:
            sid = browser(request)
            return await handler(request, ROOM_STORE.get(), request.path_params["code"], sid)
        except RefusedError as exc:
            return refusal(exc.status, str(exc))
        except RoomError as exc:  # the store's own sentences, which quote nothing typed
            return refusal(status_of(exc), str(exc))

    return route


async def _read(code):
    """The room's version for the watcher (a poll's text when it has ended)."""
    try:
        return await call(ROOM_STORE.get().version, code)
    except RoomNotFoundError:
        return ENDED


WATCH = Watch(_read)


@endpoint
async def version(request, store, code, sid):
    return JSONResponse({"version": await call(store.poll, code, sid)}, headers=NO_STORE)


@endpoint
async def state(request, store, code, sid):
    current = await call(store.poll, code, sid)  # counts this phone as connected
    seen = request.query_params.get("seen")
    waits = isinstance(current, int) and seen == str(current)  # a room, not a code that ended
    if waits and not await WATCH.changed(code, current, PHONE_WAIT_SECONDS):
        return JSONResponse({"version": current, "same": True}, headers=NO_STORE)
    fast = store.in_process and _kept(store, code)
    if fast:
        body = state_bytes(store, code, sid, time.time())
    else:  # the room's shared part is made in a worker thread, never on the event loop
        body = await in_thread(state_bytes, store, code, sid, time.time())
    return Response(body, media_type="application/json", headers=NO_STORE)


def _kept(store, code):
    """Whether the room's shared part is kept already (state_bytes then makes nothing)."""
    try:
        return shared_bytes.peek(store.room(code)) is not None
    except RoomError:
        return True  # an ended room's part is a few sentences


@endpoint
async def join(request, store, code, sid):
    await body_of(request)
    room = await call(store.join, code, sid, client_address(request))
    return JSONResponse({"code": room.code}, headers=NO_STORE)


@endpoint
async def answer(request, store, code, sid):
    option = whole(await body_of(request), "option", "An answer")
    await call(store.answer, code, sid, option)
    return JSONResponse({}, headers=NO_STORE)


@endpoint
async def confidence(request, store, code, sid):
    level = whole(await body_of(request), "level", "How sure you are")
    await call(store.confide, code, sid, level)
    return JSONResponse({}, headers=NO_STORE)


@endpoint
async def sketch(request, store, code, sid):
    levels = (await body_of(request)).get("levels")
    if not isinstance(levels, list) or not all(type(v) is int for v in levels):
        raise RefusedError(400, "A sketch is one whole number per key.")
    await call(store.answer_sketch, code, sid, levels)
    return JSONResponse({}, headers=NO_STORE)


@endpoint
async def lost(request, store, code, sid):
    await body_of(request)
    counted = await call(store.im_lost, code, sid)
    note = (
        "The lecturer sees that someone is lost (not who)."
        if counted
        else "Already said in the last minute: the lecturer sees it."
    )
    return JSONResponse({"note": note}, headers=NO_STORE)


ROUTES = [
    Route("/api/rooms/{code}/version", version, methods=["GET"]),
    Route("/api/rooms/{code}/state", state, methods=["GET"]),
    Route("/api/rooms/{code}/join", join, methods=["POST"]),
    Route("/api/rooms/{code}/answer", answer, methods=["POST"]),
    Route("/api/rooms/{code}/confidence", confidence, methods=["POST"]),
    Route("/api/rooms/{code}/sketch", sketch, methods=["POST"]),
    Route("/api/rooms/{code}/lost", lost, methods=["POST"]),
]
