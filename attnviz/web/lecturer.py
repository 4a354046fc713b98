"""The lecturer's own credential, set and cleared by the server (classroom/credential.py says
what it is). The Classroom page cannot set a cookie (a Streamlit script answers over a
WebSocket); its script hands the room's code and key over to these routes, which answer with
the cookie:

    POST /api/lecturer        {"room": CODE, "key": KEY} -> 204 and Set-Cookie attnviz_lecturer
                              (HttpOnly, SameSite=Strict, Secure over https, Max-Age until the
                              room ends) when KEY is the room's lecturer key and the room is
                              open; else a JSON {"error": sentence} and no cookie (403 a wrong
                              key, 404 no such room, 409 closed, 429 too many wrong keys from
                              the network, 503 the store away)
    POST /api/lecturer/leave  -> 204 and the cookie cleared (Close, "Leave this computer")

Both answer only a request that the page itself sent (same origin: Sec-Fetch-Site, else the
Origin's host): another site cannot hand a browser a room's controls, nor take them away. The
key travels in the body, never in an address (nginx logs addresses, never bodies). Wrong keys
are counted per client address (``serve.proxy.client_address``, as the pages count).
"""

from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from attnviz.classroom import RoomError, StoreUnavailableError
from attnviz.classroom.credential import (
    LECTURER_COOKIE,
    ROUTES_SERVED,
    credential_value,
    read_credential,
    seconds_left,
)
from attnviz.classroom.room import (
    RateLimitedError,
    RoomClosedError,
    RoomNotFoundError,
    WrongKeyError,
)
from attnviz.serve.classroom import ROOM_STORE
from attnviz.serve.proxy import client_address
from attnviz.web.cookies import is_https, set_cookie_header

STATUS = (  # the store's refusals, most specific first
    (WrongKeyError, 403),
    (RoomNotFoundError, 404),
    (RoomClosedError, 409),
    (RateLimitedError, 429),
    (StoreUnavailableError, 503),
    (RoomError, 400),
)


def serve():
    """The App serves these routes (its lifespan says so): the page hands the lecturer's
    credential over to them instead of keeping it under the browser's id."""
    ROUTES_SERVED.set()


def same_origin(request):
    """Whether the page of this app sent ``request``: Sec-Fetch-Site says same-origin (every
    current browser sends it), or, without it, an Origin header names this host."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    return origin is None or urlsplit(origin).hostname == urlsplit(f"//{host}").hostname


def request_address(request):
    """The client's address, as the pages see it (``serve.proxy``)."""
    peer = request.client.host if request.client is not None else None
    return client_address(peer, request.headers.get("x-forwarded-for"))


NO_STORE = {"Cache-Control": "no-store"}  # no cache between keeps an answer with a cookie


def _refused(message, status):
    return JSONResponse({"error": message}, status_code=status, headers=NO_STORE)


def _room_seconds(code, key, address):
    """(Blocking: the store.) The seconds until room ``code`` ends, when ``key`` is its
    lecturer's and it is open; the store's RoomError otherwise."""
    store = ROOM_STORE.get()
    room = store.check_key(code, key, address)
    if room.closed:
        raise RoomClosedError(f"Room {room.code} is closed: open a new room.")
    return seconds_left(room, store.clock())


async def take(request):
    """POST /api/lecturer (the module's docstring)."""
    if not same_origin(request):
        return _refused("Only this app's own page can hand over a room's controls.", 403)
    try:
        body = await request.json()
        found = read_credential(credential_value(str(body["room"]), str(body["key"])))
    except (ValueError, KeyError, TypeError):
        found = None
    if found is None:
        return _refused('The body is {"room": CODE, "key": KEY}, a room and its key.', 400)
    code, key = found
    try:
        seconds = await run_in_threadpool(_room_seconds, code, key, request_address(request))
    except RoomError as exc:
        status = next(status for kind, status in STATUS if isinstance(exc, kind))
        return _refused(str(exc), status)
    cookie = set_cookie_header(
        LECTURER_COOKIE,
        credential_value(code, key),
        max_age=seconds,
        https=is_https(request.scope),
        same_site="Strict",
    )
    return Response(status_code=204, headers={"Set-Cookie": cookie.decode("latin-1"), **NO_STORE})


async def leave(request):
    """POST /api/lecturer/leave: the cookie cleared."""
    if not same_origin(request):
        return _refused("Only this app's own page can clear a room's controls.", 403)
    cookie = set_cookie_header(
        LECTURER_COOKIE, "", max_age=0, https=is_https(request.scope), same_site="Strict"
    )
    return Response(status_code=204, headers={"Set-Cookie": cookie.decode("latin-1"), **NO_STORE})


ROUTES = [
    Route("/api/lecturer", take, methods=["POST"]),
    Route("/api/lecturer/leave", leave, methods=["POST"]),
]
