"""The light phone page's routes (attnviz/web/phone) through Starlette's TestClient, with the
App's cookie middleware: the room's API on the in-process store and on fakeredis (the same
store methods as the Streamlit phone), its refusals as sentences, the Origin check, the bounds
on bodies, the browser's cookie as the student, the long poll, and the page's own files."""

import json
import re
import threading
import time

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from attnviz.classroom import MemoryStore
from attnviz.classroom.questions import ANSWER_IN_A, all_questions
from attnviz.classroom.redis_store import RedisStore
from attnviz.classroom.screens import reveal
from attnviz.classroom.screens_phone import CLOSED, own_says, plain
from attnviz.classroom.sections import Mine
from attnviz.classroom.sketch import class_summary, sketch_kind, sketch_question
from attnviz.lessons import sketch
from attnviz.limits import MAX_PHONE_BODY_BYTES
from attnviz.links.classroom import BROWSER_COOKIE, SID_PATTERN
from attnviz.links.shared import settings_query
from attnviz.serve.classroom import ROOM_STORE, room_settings
from attnviz.settings import Settings
from attnviz.web import middleware, phone
from attnviz.web.phone import api, page

SITE = "http://testserver"
ORIGIN = {"Origin": SITE}
MARKUP = "<b>x</b> sat <img src=x onerror=alert(1)>"


@pytest.fixture(params=["memory", "fakeredis"])
def store(request, monkeypatch):
    if request.param == "memory":
        made = MemoryStore()
    else:
        import fakeredis

        made = RedisStore(client=fakeredis.FakeRedis(server=fakeredis.FakeServer()))
    monkeypatch.setattr(ROOM_STORE, "get", lambda **_: made)
    return made


def phone_client():
    """A phone: a client that keeps the cookie the App's middleware gives it."""
    app = Starlette(routes=phone.ROUTES, middleware=middleware())
    return TestClient(app, base_url=SITE)


def opened(store, text="the cat sat on the mat"):
    return store.open(settings_query(Settings(text=text)), "L" * 16, "10.0.0.1")


def joined(code, n=1):
    phones = [phone_client() for _ in range(n)]
    for p in phones:
        assert p.post(f"/api/rooms/{code}/join", json={}, headers=ORIGIN).status_code == 200
    return phones


def state(p, code, seen=None):
    query = "" if seen is None else f"?seen={seen}"
    response = p.get(f"/api/rooms/{code}/state{query}")
    assert response.status_code == 200, response.text
    return response.json()


def ask(store, room, key, rounds=1, kind=None):
    questions = all_questions(room_settings(store.room(room.code)), room.quiz_seed)
    q = next(q for q in questions if kind in (None, q.kind))
    store.push_question(
        room.code, key, room.quiz_seed, q.kind, len(q.options), rounds, q.answer_index
    )
    return q


def test_the_browser_cookie_is_the_student_on_every_tab_and_reload(store):
    room, key = opened(store)
    first = phone_client()
    response = first.post(f"/api/rooms/{room.code.lower()}/join", json={}, headers=ORIGIN)
    assert response.json() == {"code": room.code}  # a code typed in lower case
    sid = first.cookies.get(BROWSER_COOKIE)
    assert SID_PATTERN.fullmatch(sid)
    assert store.tally(room.code).students == 1
    q = ask(store, room, key)
    first.post(f"/api/rooms/{room.code}/answer", json={"option": 1}, headers=ORIGIN)
    second_tab = phone_client()  # another tab of the same browser: the same cookie
    second_tab.cookies.set(BROWSER_COOKIE, sid)
    assert state(second_tab, room.code)["mine"]["answer"] == 1 == store.my_answer(room.code, sid)
    assert store.tally(room.code).students == 1 and store.tally(room.code).answered == 1
    other = joined(room.code)[0]  # another browser: a student of its own
    assert state(other, room.code)["mine"]["answer"] is None
    assert state(first, room.code)["shared"]["question"]["text"] == q.text


def test_every_refusal_is_a_sentence(store):
    room, key = opened(store)
    p = joined(room.code)[0]
    url = f"/api/rooms/{room.code}/answer"
    early = p.post(url, json={"option": 0}, headers=ORIGIN)
    assert early.status_code == 409
    assert early.json()["error"] == "There is no question to answer right now."
    ask(store, room, key)
    cases = [
        ({"json": {"option": 0}}, 403),  # no Origin: not from the page
        ({"json": {"option": 0}, "headers": {"Origin": "https://evil.example"}}, 403),
        ({"content": b'{"option": 0}', "headers": ORIGIN}, 415),  # not declared JSON
        ({"json": {"option": True}, "headers": ORIGIN}, 400),
        ({"json": {"option": 0.0}, "headers": ORIGIN}, 400),
        ({"json": [0], "headers": ORIGIN}, 400),
        ({"json": {"option": 99}, "headers": ORIGIN}, 409),  # the store's own rule
        ({"content": b"{nope", "headers": {**ORIGIN, "Content-Type": "application/json"}}, 400),
        ({"json": {"option": "0" * MAX_PHONE_BODY_BYTES}, "headers": ORIGIN}, 413),
    ]
    for kwargs, status in cases:
        response = p.post(url, **kwargs)
        assert response.status_code == status, (kwargs, response.text)
        sentence = response.json()["error"]
        assert sentence[0].isupper() and sentence.endswith("."), sentence
    assert store.tally(room.code).answered == 0  # none of them counted
    nowhere = p.post("/api/rooms/ZZZZZZ/join", json={}, headers=ORIGIN)
    assert nowhere.status_code == 404 and "ZZZZZZ" in nowhere.json()["error"]
    no_cookie = TestClient(Starlette(routes=phone.ROUTES), base_url=SITE)
    refused = no_cookie.get(f"/api/rooms/{room.code}/state")
    assert refused.status_code == 400 and "cookies" in refused.json()["error"]


def test_a_streamed_body_past_the_bound_is_refused_without_a_length(store):
    room, _ = opened(store)
    p = phone_client()

    def chunks():
        yield b'{"x": "'
        yield b"0" * MAX_PHONE_BODY_BYTES
        yield b'"}'

    headers = {**ORIGIN, "Content-Type": "application/json"}
    response = p.post(f"/api/rooms/{room.code}/join", content=chunks(), headers=headers)
    assert response.status_code == 413
    assert store.tally(room.code).students == 0


def test_two_rounds_and_the_twin_as_the_streamlit_phone_says_them(store):
    room, key = opened(store)
    phones = joined(room.code, 3)
    q = ask(store, room, key, rounds=2)
    wrong = (q.answer_index + 1) % len(q.options)
    for p in phones:
        p.post(f"/api/rooms/{room.code}/answer", json={"option": wrong}, headers=ORIGIN)
    phones[0].post(f"/api/rooms/{room.code}/confidence", json={"level": 2}, headers=ORIGIN)
    seen = state(phones[0], room.code)
    assert seen["mine"]["confidence"] == 2
    assert seen["shared"]["question"]["round_title"] == "Round 1 of 2: vote alone"
    store.end_round(room.code, key)
    late = phones[1].post(f"/api/rooms/{room.code}/answer", json={"option": 0}, headers=ORIGIN)
    assert late.json()["error"] == "Round 1 has ended: wait for the next one."
    store.discuss(room.code, key, 60)
    banner = state(phones[0], room.code)["shared"]["discussion"]
    assert banner["seconds"] == 60 and banner["text"] == "Discuss with your neighbour"
    store.second_round(room.code, key)
    note = state(phones[0], room.code)["mine"]["round_note"]
    assert note.startswith(f"In round 1 you answered {'ABCDE'[wrong]}.")
    phones[0].post(
        f"/api/rooms/{room.code}/answer", json={"option": q.answer_index}, headers=ORIGIN
    )
    store.reveal(room.code, key)
    revealed = state(phones[0], room.code)
    shared = revealed["shared"]
    room_now = store.room(room.code)
    shown = reveal(room_now, store.rounds_summary(room.code))  # the Streamlit phone's reveal
    said = (shown.moves, shown.shares, "".join(shown.sure_wrong or ()))
    assert shared["sentences"] == [sentence for sentence in said if sentence]
    assert shown.moves and len(shared["charts"]) == len(shown.charts)
    assert all(c["words"] and c["alt"] and c["spec"]["data"] for c in shared["charts"])
    letter = "ABCDE"[q.answer_index]
    assert revealed["mine"]["lines"][0] == f"Your answer {letter} is right."
    assert shared["proof"]["answer"].startswith(f"The answer: {letter} · ")
    store.twin(room.code, key, room.quiz_seed + 1, len(q.options), q.answer_index)
    assert state(phones[2], room.code)["shared"]["question"]["round_title"].startswith("The twin")


def test_a_reveal_reads_the_class_answers_once_for_every_phone(store, monkeypatch):
    room, key = opened(store)
    phones = joined(room.code, 4)
    sids = [p.cookies.get(BROWSER_COOKIE) for p in phones]
    q = ask(store, room, key, rounds=2)
    url = f"/api/rooms/{room.code}/answer"
    for k, p in enumerate(phones[:3]):  # the fourth never answers
        p.post(url, json={"option": k % len(q.options)}, headers=ORIGIN)
    store.end_round(room.code, key)
    store.second_round(room.code, key)
    for k, p in enumerate(phones[:2]):  # round 2 takes answers: each phone sees its own at once
        for option in (k, q.answer_index):
            p.post(url, json={"option": option}, headers=ORIGIN)
            assert state(p, room.code)["mine"]["answer"] == option
    store.end_round(room.code, key)
    room = store.reveal(room.code, key)
    reads = []
    primitive = type(store)._round_answers
    monkeypatch.setattr(
        type(store), "_round_answers", lambda s, *a: reads.append(a[1]) or primitive(s, *a)
    )
    mine = [state(p, room.code)["mine"] for p in phones]
    assert reads.count(1) <= 2  # once for the phones, once for the class's numbers
    monkeypatch.setattr(type(store), "_round_answers", primitive)
    for sid, own in zip(sids, mine, strict=True):  # the store's own answers, read per phone
        answers = store.my_answers(room.code, sid)
        expected = own_says(room, q, Mine(answers.get(2), tuple(answers.items())))
        assert own["answer"] == answers.get(2)
        assert own["lines"] == [plain(say) for say in expected]


def test_the_long_poll_answers_at_the_change_or_says_the_same(store, monkeypatch):
    room, key = opened(store)
    p = joined(room.code)[0]
    version = state(p, room.code)["version"]
    monkeypatch.setattr(api, "PHONE_WAIT_SECONDS", 0.3)
    assert state(p, room.code, seen=version) == {"version": version, "same": True}
    monkeypatch.setattr(api, "PHONE_WAIT_SECONDS", 60)  # a change ends the wait
    changer = threading.Timer(0.4, lambda: ask(store, room, key))
    changer.start()
    started = time.monotonic()
    after = state(p, room.code, seen=version)
    changer.join()
    assert after["version"] != version and after["shared"]["screen"] == "question"
    assert time.monotonic() - started < 60
    assert p.get(f"/api/rooms/{room.code}/version").json() == {"version": after["version"]}
    assert store.phones_now(room.code) == 1  # the polls count the phone as connected


def test_a_sketch_and_its_result(store):
    room, key = opened(store)
    a, b = joined(room.code, 2)
    asked = sketch_question(room_settings(store.room(room.code)), "causal", 3)
    store.push_question(room.code, key, room.quiz_seed, sketch_kind("causal", 3), asked.n)
    s = state(a, room.code)["shared"]["sketch"]
    assert s["labels"] == list(asked.labels) and s["allowed"] == list(asked.allowed)
    url = f"/api/rooms/{room.code}/sketch"
    for levels in ([1] * (asked.n - 1), [9] * asked.n, [0] * asked.n):  # the store's rules
        refused = a.post(url, json={"levels": levels}, headers=ORIGIN)
        assert refused.status_code == 409 and refused.json()["error"].endswith(".")
    assert a.post(url, json={"levels": "1,2"}, headers=ORIGIN).status_code == 400
    mine = [2 if ok else 0 for ok in asked.allowed]
    assert a.post(url, json={"levels": mine}, headers=ORIGIN).status_code == 200
    b.post(url, json={"levels": [int(ok) for ok in asked.allowed]}, headers=ORIGIN)
    assert state(a, room.code)["mine"]["sketch"] == mine
    store.reveal(room.code, key)
    after = state(a, room.code)
    row = sketch.weights(mine, asked.allowed)
    assert after["mine"]["weights"] == pytest.approx(list(row))
    assert after["mine"]["lines"] == [sketch.own_sentence(row, asked.truth, asked.labels)]
    summary = class_summary(asked, store.sketches(room.code))
    assert after["shared"]["sketch"]["sentence"] == sketch.sentence(summary)


def test_no_a_while_a_question_reads_its_answer_off_a(store):
    room, key = opened(store)
    p = joined(room.code)[0]
    assert "example" in state(p, room.code)["shared"]  # before any question
    kinds = {q.kind for q in all_questions(room_settings(store.room(room.code)), 0)}
    shown = sorted(kinds - ANSWER_IN_A)[0]
    hidden = sorted(kinds & ANSWER_IN_A)[0]
    ask(store, room, key, kind=shown)
    assert "example" in state(p, room.code)["shared"]
    ask(store, room, key, kind=hidden)
    assert "example" not in state(p, room.code)["shared"]
    store.reveal(room.code, key)
    assert "example" in state(p, room.code)["shared"]


def test_tokens_are_data_and_the_page_never_writes_markup(store):
    room, key = opened(store, MARKUP)
    p = joined(room.code)[0]
    example = state(p, room.code)["shared"]["example"]
    assert "<b>" not in json.dumps(example["spec"])  # Plotly's labels escaped by the chart
    store.push_question(room.code, key, room.quiz_seed, sketch_kind("plain", 0), 5)
    labels = state(p, room.code)["shared"]["sketch"]["labels"]
    assert labels[0] == "<b>x</b>"  # plain text, which the page puts in with textContent
    script = (page.STATIC / "phone.js").read_text(encoding="utf-8")
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", script)
    html = p.get(f"/api/phone?room={room.code}")
    assert "script-src 'self'" in html.headers["content-security-policy"]
    assert "<script>" not in html.text  # no inline script: the CSP would refuse it


def test_closed_ended_and_reopened_rooms(store):
    room, key = opened(store)
    p = joined(room.code)[0]
    store.close(room.code, key)
    assert state(p, room.code)["shared"] == {
        "screen": "closed",
        "code": room.code,
        "version": store.room(room.code).version,
        "phase": "closed",
        "notice": CLOSED,
    }
    new, _ = store.reopen(room.code, key, "L" * 16, "10.0.0.1")
    assert state(p, room.code)["shared"] == {"screen": "next", "code": new.code}


def test_the_page_and_its_files(store):
    p = phone_client()
    html = p.get("/api/phone").text
    for name in ("phone.css", "phone.js"):
        url = re.search(rf'"(/api/phone/{name}\?v=\w+)"', html).group(1)
        response = p.get(url)
        assert response.status_code == 200 and "immutable" in response.headers["cache-control"]
        assert response.content == (page.STATIC / name).read_bytes()
    plotly_url = re.search(r'data-plotly="([^"]+)"', html).group(1)
    zipped = p.get(plotly_url, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == page.PLOTLY_JS.read_bytes()  # the installed package's file
    assert p.get("/api/phone/secret.py").status_code == 404


def test_one_read_of_the_store_a_round_for_every_waiting_phone():
    import asyncio

    from attnviz.web.phone.watch import Watch

    reads, version = [], {"v": 1}

    async def read(code):
        reads.append(code)
        return version["v"]

    async def hall():
        watch = Watch(read, every=0.01)
        waiting = [asyncio.create_task(watch.changed("ROOM", 1, 60)) for _ in range(200)]
        while len(reads) < 3:  # the watcher has read the unchanged room a few times
            await asyncio.sleep(0.01)
        assert watch.waiting() == {"ROOM": 200}
        version["v"] = 2
        woken = await asyncio.gather(*waiting)
        assert await watch.changed("ROOM", 1, 60)  # a phone behind: answered at once
        return woken

    woken = asyncio.run(hall())
    assert woken == [True] * 200
    assert len(reads) < 200  # rounds of reads, not one read a phone
