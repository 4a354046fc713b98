"""Faults during a lecture, with real processes: deploy/redis.conf's redis-server, two replicas
and deploy/nginx.conf's nginx (tools/services.py). A room is opened through nginx (its join link,
copied from the lecturer's page, is the light page's), a Streamlit phone on each replica answers
(the room's Classroom page), then in turn: kill -9 of the lecturer's replica, Redis restarted,
nginx reloaded, a replica restarted. After each,
the room and its counts are the same (read in a new tab of the lecturer's browser), every phone
shows its own answer, and a new answer still counts. In-process (one server, no Redis): a
restart says the room ended, on the phone and on the lecturer's page.

The lecturer's own projector, after its replica is killed, reconnects to the other replica and
is the lecturer's again: the room is held by the browser's id (its cookie), found in Redis.

Light phones (attnviz/web/phone, plain HTTP clients through nginx, two on each replica) answer
round 1 and round 2 of a "vote, discuss, revote" question; kill -9 of a replica in round 2:
every answer already given stays (the store's numbers and each phone's own state), and the
phones of the killed replica carry on on the other one."""

import contextlib
import os
import secrets
import signal
import urllib.request

import pytest
import requests

from attnviz.classroom.questions import all_questions
from attnviz.classroom.redis_store import RedisStore
from attnviz.links.shared import settings_query
from attnviz.serve.classroom import room_settings
from attnviz.settings import Settings
from tools.browser import free_port, server_pid, streamlit_server
from tools.services import nginx_access_log, reload_nginx

pytestmark = [pytest.mark.replicas, pytest.mark.browser]

WAIT = 180_000  # ms: a reconnect after a fault, on a machine loaded by others (load 16)
OPTIONS = "[data-testid=stMain] .st-key-cls_opt_{k} button"
LETTERS = "ABCDEFGH"


def replica_of(cluster, cookie):
    """The replica ("127.0.0.1:PORT") that nginx sends the ``attnviz_replica`` value
    ``cookie`` to: its answer to a health check names it. No page, so no session: a page
    opened on the join link and closed again may have joined the room as a student."""
    request = urllib.request.Request(
        f"{cluster.proxy}/_stcore/health", headers={"Cookie": f"attnviz_replica={cookie}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.headers.get("X-Attnviz-Replica")


def cookie_for(cluster, port):
    """An ``attnviz_replica`` value that nginx sends to replica ``port``."""
    for _ in range(64):  # each cookie lands on one of two replicas: 2**-64 to fail
        value = secrets.token_hex(16)
        if replica_of(cluster, value) == f"127.0.0.1:{port}":
            return value
    raise AssertionError(f"no cookie reached replica {port}")


def tab_on(browser, cluster, port, url):
    """A new browser (its own cookies) whose nginx cookie sends it to replica ``port``, at
    ``url`` (through nginx)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    value = cookie_for(cluster, port)
    context.add_cookies([{"name": "attnviz_replica", "value": value, "url": cluster.proxy}])
    page = context.new_page()
    response = page.goto(url)
    assert response.headers.get("x-attnviz-replica") == f"127.0.0.1:{port}"
    return page


WATCH_CONNECTION = """() => {
  window.attnvizDropped = false;
  const app = document.querySelector('[data-testid=stApp]');
  new MutationObserver(() => {
    if (app.dataset.testConnectionState !== 'CONNECTED') window.attnvizDropped = true;
  }).observe(app, {attributes: true, attributeFilter: ['data-test-connection-state']});
}"""
BACK = (
    "[data-testid=stApp][data-test-connection-state=CONNECTED][data-test-script-state=notRunning]"
)


def watch(page):
    """Note, from now on, when the page loses its server (before a fault)."""
    page.evaluate(WATCH_CONNECTION)


def reconnected(page):
    """Wait until the page has lost its server and run again on one: a page shows the last
    run's elements while it reconnects, so what it shows before then proves nothing."""
    page.wait_for_function("() => window.attnvizDropped === true", timeout=WAIT)
    page.wait_for_selector(BACK, timeout=WAIT)


def open_room(page):
    page.locator("[data-testid=stMain] button", has_text="Open a room").click(timeout=WAIT)
    code = page.locator(".st-key-cls_code h1").inner_text(timeout=WAIT).strip()
    page.locator("[data-testid=stMain] button", has_text="Ask this question").click()
    page.wait_for_selector("text=Answered", timeout=WAIT)
    return code


def answer(phone, k, letter):
    phone.locator(OPTIONS.format(k=k)).click(timeout=WAIT)
    shows_own(phone, letter)


def shows_own(phone, letter):
    """The phone shows its own answer (after a reconnect: read from the store by its id)."""
    phone.wait_for_selector(
        f"[data-testid=stAlertContentSuccess] >> text=Your answer: {letter},", timeout=WAIT
    )


def count_in_lecturers_browser(lecturer, cluster, expected):
    """A new tab of the lecturer's browser, through nginx, shows ``expected`` ("n of m"): the
    room is found by the browser alone (no link, no key)."""
    page = lecturer.context.new_page()
    try:
        page.goto(f"{cluster.proxy}/Classroom")
        try:
            page.wait_for_selector(f"[data-testid=stMetricValue] >> text={expected}", timeout=WAIT)
        except Exception:
            page.screenshot(path="test-artifacts/fault-lecturer-tab.png")
            raise
    finally:
        page.close()


def test_a_room_survives_every_fault(browser, cluster):
    a, b = cluster.ports
    lecturer = tab_on(browser, cluster, a, f"{cluster.proxy}/Classroom")
    code = open_room(lecturer)
    join = lecturer.locator(".st-key-cls_join_link code").inner_text().strip()
    assert join == f"{cluster.proxy}/api/phone?room={code}"  # plain text: no invisible mark
    assert join.isascii() and join.isprintable()
    streamlit_phone = f"{cluster.proxy}/Classroom?room={code}"  # the light page: its own test
    phones = [tab_on(browser, cluster, port, streamlit_phone) for port in (a, b)]  # a phone each
    letters = "AB"
    for k, phone in enumerate(phones):
        answer(phone, k % 2, letters[k])
    try:
        lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=2 of 2", timeout=WAIT)
    except Exception:
        lecturer.screenshot(path="test-artifacts/fault-lecturer-before.png", full_page=True)
        print(RedisStore(cluster.redis_url).tally(code))
        raise
    given = list(letters)

    def check(fault, changer, moved=()):
        for k in moved:  # the phones of a replica that went away: on the other one now
            reconnected(phones[k])
        for phone, letter in zip(phones, given, strict=True):
            shows_own(phone, letter)
        new = "B" if given[changer] == "A" else "A"
        answer(phones[changer], "AB".index(new), new)  # a new answer still counts
        given[changer] = new
        count_in_lecturers_browser(lecturer, cluster, "2 of 2")
        counts = RedisStore(cluster.redis_url).tally(code).counts
        assert counts[:2] == (given.count("A"), given.count("B")), fault

    for page in phones:
        watch(page)
    os.kill(server_pid(a), signal.SIGKILL)  # the lecturer's replica
    cluster.stop(a)
    check("kill -9 of the lecturer's replica", 0, moved=(0,))
    cluster.start_replica(a)  # systemd's Restart=always

    cluster.stop("redis")  # SIGTERM: Redis's SHUTDOWN, then it starts on the same folder
    cluster.start_redis()
    check("Redis restarted", 1)

    reload_nginx(cluster.proxy)
    check("nginx reloaded", 0)

    for page in phones:
        watch(page)
    cluster.stop(b)  # SIGTERM, as `systemctl restart attnviz@PORT`
    cluster.start_replica(b)
    check("a replica restarted", 1, moved=(1,))
    log = nginx_access_log(cluster.proxy)
    assert "/Classroom" in log and "key=" not in log and "room=" not in log


def test_the_lecturers_projector_survives_its_replica_killed(browser, cluster):
    a, _ = cluster.ports
    lecturer = tab_on(browser, cluster, a, f"{cluster.proxy}/Classroom?present=on")
    code = open_room(lecturer)
    watch(lecturer)
    os.kill(server_pid(a), signal.SIGKILL)
    cluster.stop(a)
    reconnected(lecturer)  # a new session on the other replica
    lecturer.wait_for_selector(f".st-key-cls_code h1 >> text={code}", timeout=WAIT)
    lecturer.locator("[data-testid=stMain] button", has_text="Reveal").wait_for(timeout=WAIT)
    lecturer.context.close()
    cluster.start_replica(a)  # systemd's Restart=always: the cluster whole for the next test


def test_an_in_process_restart_says_the_room_ended_on_both_sides(browser, monkeypatch):
    monkeypatch.delenv("ATTNVIZ_REDIS_URL", raising=False)
    port = free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    phone_context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        with contextlib.ExitStack() as first:
            url = first.enter_context(streamlit_server(port=port))
            lecturer = context.new_page()
            lecturer.goto(f"{url}/Classroom")
            code = open_room(lecturer)
            phone = phone_context.new_page()
            phone.goto(f"{url}/Classroom?room={code}")
            answer(phone, 0, "A")
            for page in (phone, lecturer):
                watch(page)
        with streamlit_server(port=port):  # the same server, restarted: its rooms are gone
            for page in (phone, lecturer):
                reconnected(page)
                page.wait_for_selector(
                    "text=This room has ended: the server restarted", timeout=WAIT
                )
            lecturer.locator(".st-key-cls_reopen_sidebar button").wait_for(timeout=WAIT)
            assert phone.locator(".st-key-cls_join button").count() == 1  # the code box
    finally:
        context.close()
        phone_context.close()


class LightPhone:
    """A light phone as a plain HTTP client through nginx, sent to replica ``port`` by its
    nginx cookie, with the App's cookie (its own student) once it has joined room ``code``."""

    def __init__(self, cluster, port, code):
        self.http = requests.Session()
        self.http.cookies.set("attnviz_replica", cookie_for(cluster, port))
        self.url, self.origin = f"{cluster.proxy}/api/rooms/{code}", cluster.proxy
        assert self.post("join").status_code == 200

    def post(self, what, **body):
        headers = {"Origin": self.origin}
        return self.http.post(f"{self.url}/{what}", json=body, headers=headers, timeout=60)

    def answer(self, option):
        response = self.post("answer", option=option)
        assert response.status_code == 200, response.text
        return response.headers["X-Attnviz-Replica"]

    def state(self):
        response = self.http.get(f"{self.url}/state", timeout=60)
        assert response.status_code == 200, response.text
        return response.json()


def test_light_phones_keep_their_answers_when_a_replica_is_killed_in_round_2(cluster):
    a, b = cluster.ports
    store = RedisStore(cluster.redis_url)
    query = settings_query(Settings(text="the cat sat on the mat"))
    room, key = store.open(query, "L" * 16, "10.0.0.1")
    q = all_questions(room_settings(room), room.quiz_seed)[0]
    right, n = q.answer_index, len(q.options)
    store.push_question(room.code, key, room.quiz_seed, q.kind, n, 2, right)
    phones = [LightPhone(cluster, port, room.code) for port in (a, a, b, b)]
    first = [(right + k) % n for k in range(4)]
    second = [right, right, (right + 1) % n, right]
    for phone, option in zip(phones, first, strict=True):
        phone.answer(option)
    store.end_round(room.code, key)
    store.second_round(room.code, key)
    phones[0].answer(second[0])  # on replica a
    phones[2].answer(second[2])  # on replica b
    os.kill(server_pid(a), signal.SIGKILL)
    cluster.stop(a)
    try:
        for k in (1, 3):  # phone 1's replica is gone: nginx tries it, then the other
            assert phones[k].answer(second[k]).endswith(f"127.0.0.1:{b}")
        for phone, mine, before in zip(phones, second, first, strict=True):
            own = phone.state()["mine"]
            assert own["answer"] == mine
            assert own["round_note"].startswith(f"In round 1 you answered {LETTERS[before]}.")
        store.reveal(room.code, key)
        summary = store.rounds_summary(room.code)
        counted = [list(summary[r]["counts"]) for r in ("1", "2")]
        assert counted == [[given.count(k) for k in range(n)] for given in (first, second)]
        for phone, before, mine in zip(phones, first, second, strict=True):
            rounds = phone.state()["mine"]["lines"][-1]
            marks = [LETTERS[x] + (" ✓" if x == right else " ✗") for x in (before, mine)]
            assert rounds == f"Your answers: round 1: {marks[0]} · round 2: {marks[1]}"
    finally:
        cluster.start_replica(a)  # systemd's Restart=always: the cluster whole again
