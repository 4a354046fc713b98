"""The App's HTTP side (attnviz/web/), without Streamlit's server: the browser-id cookie's
middleware and /api/health, through Starlette's TestClient; the health route against a real
redis-server that stops and starts again."""

import threading

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from attnviz.classroom import MemoryStore, StoreRefusedError, StoreUnavailableError
from attnviz.links.classroom import BROWSER_COOKIE, SID_PATTERN
from attnviz.web import health, middleware
from attnviz.web.cookies import BrowserCookie


def echo(request):  # what the handler of the same request sees
    return PlainTextResponse(request.cookies.get(BROWSER_COOKIE, ""))


@pytest.fixture
def client():
    app = Starlette(routes=[Route("/", echo)], middleware=middleware())
    return TestClient(app, base_url="http://testserver")


def set_cookie(response):
    return response.headers.get("set-cookie", "")


def test_a_first_request_gets_an_httponly_id_that_its_own_handler_already_sees(client):
    response = client.get("/")
    header = set_cookie(response)
    minted = header.split(";")[0].removeprefix(f"{BROWSER_COOKIE}=")
    assert SID_PATTERN.fullmatch(minted)
    assert response.text == minted  # the session that this request opens has it too
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Path=/" in header
    assert "Secure" not in header  # plain http
    again = client.get("/")  # the client keeps its cookie: no new one, the same id
    assert set_cookie(again) == "" and again.text == minted


def test_a_bad_id_is_replaced_and_other_cookies_are_kept():
    app = Starlette(routes=[Route("/", echo)], middleware=[Middleware(BrowserCookie)])
    client = TestClient(app)
    response = client.get("/", headers={"Cookie": f"theme=dark; {BROWSER_COOKIE}=<b>x</b>"})
    minted = set_cookie(response).split(";")[0].split("=", 1)[1]
    assert SID_PATTERN.fullmatch(minted) and response.text == minted


def test_over_https_the_cookie_is_secure(client):
    behind_proxy = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert "; Secure" in set_cookie(behind_proxy)
    direct = TestClient(client.app, base_url="https://testserver").get("/")
    assert "; Secure" in set_cookie(direct)


class Pinned:  # stands in for serve.classroom.ROOM_STORE
    def __init__(self, store):
        self.store = store

    def get(self):
        return self.store


class Failing(MemoryStore):
    in_process = False

    def __init__(self, error):
        super().__init__()
        self.error = error

    def ping(self):
        raise self.error


def ask(monkeypatch, store):
    monkeypatch.setattr(health, "ROOM_STORE", Pinned(store))
    return TestClient(Starlette(routes=health.ROUTES)).get("/api/health")


def test_health_of_an_in_process_store(monkeypatch):
    response = ask(monkeypatch, MemoryStore())
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert body["store"]["kind"] == "in-process" and body["store"]["state"] == "ok"
    assert body["rss_MB"] > 0 and 0 <= body["caches"]["MB"] <= body["caches"]["max_MB"]


@pytest.mark.parametrize(
    ("error", "state"),
    [
        (StoreUnavailableError("gone"), "unreachable"),
        (StoreRefusedError("no", reason="it is out of memory"), "refusing"),
    ],
)
def test_health_says_what_the_store_does(monkeypatch, error, state):
    response = ask(monkeypatch, Failing(error))
    assert response.status_code == 503
    assert response.json()["status"] == f"store {state}"
    assert response.json()["store"]["state"] == state


def test_a_store_that_does_not_answer_is_unreachable_after_the_route_stops_waiting(monkeypatch):
    release = threading.Event()

    class Hanging(Failing):
        def ping(self):
            release.wait(10)

    try:
        response = ask(monkeypatch, Hanging(None))
    finally:
        release.set()
    assert response.json()["store"]["state"] == "unreachable"
    assert f"{health.HEALTH_STORE_SECONDS:g} s" in response.json()["store"]["detail"]


def test_a_password_never_shows_in_a_message():
    shown = health.shown_url("redis://:s3cret@10.0.0.1:6380/0")
    assert "s3cret" not in shown and shown == "redis://:***@10.0.0.1:6380/0"
    assert health.shown_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_health_follows_a_real_redis_that_stops_and_starts_again(
    monkeypatch, tmp_path, needs_redis
):
    """The first request after Redis stops says "unreachable", the first after it is back
    "ok": the route asks the store each time (within HEALTH_STORE_SECONDS), keeping nothing."""
    from attnviz.classroom.redis_store import RedisStore
    from tools.browser import free_port
    from tools.services import redis_server

    port = free_port()
    with redis_server(port=port, folder=tmp_path) as url:
        store = RedisStore(url, secret="a-test-secret-of-enough-chars")
        assert ask(monkeypatch, store).json()["store"]["state"] == "ok"
    assert ask(monkeypatch, store).json()["store"]["state"] == "unreachable"
    with redis_server(port=port, folder=tmp_path):
        assert ask(monkeypatch, store).json()["status"] == "ok"


class Made:  # a ROOM_STORE whose store is made from ``environ``, as make_store makes it
    def __init__(self, environ):
        self.environ = environ

    def get(self):
        from attnviz.classroom import make_store

        return make_store(self.environ)


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({"ATTNVIZ_REDIS_URL": "localhost:6379", "ATTNVIZ_SECRET": "x" * 20}, "not a Redis URL"),
        ({"ATTNVIZ_REDIS_URL": "redis://127.0.0.1:1/0"}, "ATTNVIZ_SECRET is not set"),
        (
            {"ATTNVIZ_REDIS_URL": "redis://:pw@127.0.0.1:1/0", "ATTNVIZ_SECRET": "x" * 20},
            "ATTNVIZ_REDIS_URL=redis://:***@127.0.0.1:1/0 has not answered in 0 s",
        ),
    ],
)
def test_a_bad_redis_url_stops_the_server_at_start_with_one_sentence(monkeypatch, environ, said):
    stopped = []
    monkeypatch.setattr(health, "ROOM_STORE", Made(environ))
    monkeypatch.setattr(health, "stop", lambda sentence: stopped.append(sentence))
    health.open_store(wait=0, environ=environ)
    assert len(stopped) == 1 and said in stopped[0], stopped
    assert stopped[0].startswith("attnviz does not start: ")
    assert "lesson pages work" not in stopped[0]  # they do not: the server does not start


def test_an_in_process_store_opens_at_start(monkeypatch):
    monkeypatch.setattr(health, "ROOM_STORE", Made({}))
    assert health.open_store(wait=0, environ={}).in_process
