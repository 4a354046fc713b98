"""The lecturer's own credential (classroom/credential.py, attnviz/web/lecturer.py, the store's
side in classroom/lecturers.py), against every backend where the store is involved: the
cookie's value, the routes that set and clear it (called as ASGI, no server), a store that
keeps no key, a deck trusted under the key's digest, wrong keys counted per address."""

import asyncio
import json

import pytest
from starlette.applications import Starlette

from attnviz import limits
from attnviz.classroom.credential import (
    LECTURER_COOKIE,
    credential_value,
    read_credential,
    seconds_left,
)
from attnviz.classroom.room import RateLimitedError, RoomNotFoundError, WrongKeyError
from attnviz.web import lecturer
from tests import test_classroom_store as contract

EXAMPLE, asked = contract.EXAMPLE, contract.asked
make, make_shared, real_redis = contract.make, contract.make_shared, contract.real_redis
clock, store = contract.clock, contract.store


def test_the_cookies_value_names_one_room_and_holds_its_key(store, clock):
    room, key = store.open(EXAMPLE, "laptop", hold=False)
    assert read_credential(credential_value(room.code, key)) == (room.code, key)
    damaged = (None, "", room.code, f"{room.code}.", f"x{room.code}.{key}", f"{room.code}.<b>")
    for value in damaged:
        assert read_credential(value) is None  # a bare code: the script's cookie of old
    assert seconds_left(room, clock()) == limits.ROOM_LIFETIME_SECONDS
    assert seconds_left(room, room.expires + 5) == 0


def test_a_store_under_the_app_keeps_no_key(make_shared, clock):
    """Opened, its link taken and a deck trusted, as the page does under the App: the browser's
    id holds nothing (a copied ``attnviz_browser`` value gets no controls), and no value in the
    store holds a key (Redis keeps digests: its memory and its append-only file)."""
    store = make_shared(clock)
    room, key = store.open(EXAMPLE, "laptop", hold=False)
    store.trust_deck(room.code, key, "Home|Classroom?question=row_sum")
    fresh = store.take_link(room.code, key, "projector-pc", "192.0.2.1", hold=False)
    assert store.held("laptop") is None and store.held("projector-pc") is None
    stored = b"".join(
        value
        for name in store.r.scan_iter()
        if store.r.type(name) == b"string" and (value := store.r.get(name)) is not None
    )
    assert key.encode() not in stored and fresh.encode() not in stored


def test_leaving_the_computer_under_the_browsers_id(store):
    room, key = store.open(EXAMPLE, "laptop")  # no App: the browser's id holds it
    assert store.held("laptop") == (room.code, key)
    store.let_go("laptop")
    assert store.held("laptop") is None
    store.room(room.code)  # the room goes on


def test_a_deck_pushes_once_the_holder_of_the_key_trusts_it(store):
    room, key = store.open(EXAMPLE, "laptop")
    deck = "Home|Classroom?question=row_sum"
    assert not store.trusts_deck(room.code, key, deck)
    store.trust_deck(room.code, key, deck)
    assert store.trusts_deck(room.code, key, deck)
    assert not store.trusts_deck(room.code, key, deck + "&tokens=VISIT+evil")  # another deck
    other_key = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert not store.trusts_deck(room.code, other_key, deck)  # not the key
    store.trust_deck(room.code, "a-key-of-nothing-000000", deck)  # a wrong key trusts nothing
    other, its_key = store.open(EXAMPLE, "laptop")
    assert not store.trusts_deck(other.code, its_key, deck)  # a new room asks again
    fresh = store.take_link(room.code, key, "projector-pc", "192.0.2.1")
    assert not store.trusts_deck(room.code, fresh, deck)  # the link's new holder, too


def test_wrong_keys_are_counted_per_address(store, clock):
    room, key = store.open(EXAMPLE, "laptop", hold=False)
    clock.now = (clock.now // 60 + 1) * 60
    for k in range(limits.MAX_KEY_TRIES_PER_MINUTE):
        assert store.check_key(room.code, key, "192.0.2.3") == room  # right keys never count
        with pytest.raises((WrongKeyError, RoomNotFoundError)):
            store.check_key(room.code if k % 2 else "ZZZZZZ", f"wrong{k:020d}", "192.0.2.3")
    with pytest.raises(RateLimitedError, match="wrong lecturer keys from your network"):
        store.check_key(room.code, key, "192.0.2.3")
    assert store.check_key(room.code, key, "198.51.100.7") == room  # another network
    clock.now += 60
    assert store.check_key(room.code, key, "192.0.2.3") == room


# The routes, called as the ASGI app that st.App mounts them in --------------------------------


def call(path, body=None, headers=(), client="127.0.0.1", scheme="http"):
    """(status, headers, JSON or None) of a request to the App's lecturer routes."""
    app = Starlette(routes=lecturer.ROUTES)
    raw = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "scheme": scheme,
        "http_version": "1.1",
        "server": ("attnviz.test", 443 if scheme == "https" else 80),
        "client": (client, 50000),
        "headers": [(b"host", b"attnviz.test")]
        + [(k.lower().encode(), v.encode()) for k, v in headers],
    }
    messages, asked_for = [], []

    async def receive():
        asked_for.append(1)
        if len(asked_for) == 1:
            return {"type": "http.request", "body": raw, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message):
        messages.append(message)

    asyncio.run(app(scope, receive, send))
    start = messages[0]
    sent = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    text = b"".join(m.get("body", b"") for m in messages[1:])
    return start["status"], sent, json.loads(text) if text else None


SAME = (("Sec-Fetch-Site", "same-origin"),)


@pytest.mark.usefixtures("empty_rooms")
def test_the_route_sets_the_cookie_for_the_rooms_key_only():
    from attnviz.ui.pages.classroom_shared import room_store

    store = room_store()
    room, key = store.open(EXAMPLE, "laptop", hold=False)
    status, headers, _ = call("/api/lecturer", {"room": room.code, "key": key}, SAME)
    assert status == 204
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"{LECTURER_COOKIE}={room.code}.{key};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    left = int(cookie.split("Max-Age=")[1].split(";")[0])
    assert 0 < room.expires - store.clock() - left < 5  # it ends with the room
    assert "Secure" not in cookie  # plain http: a lecturer's own laptop
    https = call("/api/lecturer", {"room": room.code, "key": key}, SAME, scheme="https")
    assert "; Secure" in https[1]["set-cookie"]
    proxied = (*SAME, ("X-Forwarded-Proto", "https"))  # nginx in front (deploy/nginx.conf)
    assert (
        "; Secure"
        in call("/api/lecturer", {"room": room.code, "key": key}, proxied)[1]["set-cookie"]
    )

    cross_site, evil = (("Sec-Fetch-Site", "cross-site"),), (("Origin", "https://evil.example"),)
    right = {"room": room.code, "key": key}
    refusals = {
        "wrong key": ({"room": room.code, "key": "x" * 24}, SAME, 403),
        "no such room": ({"room": "ZZZZZZ", "key": key}, SAME, 404),
        "no body": (b"{", SAME, 400),
        "markup": ({"room": "<b>", "key": key}, SAME, 400),
        "another site": (right, cross_site, 403),
        "another origin": (right, evil, 403),
    }
    for what, (body, headers, expected) in refusals.items():
        status, sent, answer = call("/api/lecturer", body, headers)
        assert status == expected, what
        assert "set-cookie" not in sent and answer["error"], what
    store.close(room.code, key)
    status, sent, answer = call("/api/lecturer", {"room": room.code, "key": key}, SAME)
    assert (status, "set-cookie" in sent) == (409, False) and "closed" in answer["error"]


def test_the_route_clears_the_cookie():
    status, headers, _ = call("/api/lecturer/leave", None, SAME)
    assert status == 204 and headers["set-cookie"].startswith(f"{LECTURER_COOKIE}=;")
    assert "Max-Age=0" in headers["set-cookie"]
    assert call("/api/lecturer/leave", None, (("Sec-Fetch-Site", "cross-site"),))[0] == 403


@pytest.mark.usefixtures("empty_rooms")
def test_the_route_counts_wrong_keys_per_client_address_behind_the_proxy():
    from attnviz.ui.pages.classroom_shared import room_store

    room, key = room_store().open(EXAMPLE, "laptop", hold=False)
    nat = (*SAME, ("X-Forwarded-For", "192.0.2.3"))
    for k in range(limits.MAX_KEY_TRIES_PER_MINUTE):
        assert call("/api/lecturer", {"room": room.code, "key": f"wrong{k:020d}"}, nat)[0] == 403
    assert call("/api/lecturer", {"room": room.code, "key": key}, nat)[0] == 429
    elsewhere = (*SAME, ("X-Forwarded-For", "198.51.100.7"))
    assert call("/api/lecturer", {"room": room.code, "key": key}, elsewhere)[0] == 204
    # a header from a peer that is not the proxy is not believed: its own address counts
    forged = (*SAME, ("X-Forwarded-For", "198.51.100.8"))
    status = call("/api/lecturer", {"room": room.code, "key": key}, forged, client="192.0.2.3")
    assert status[0] == 429
