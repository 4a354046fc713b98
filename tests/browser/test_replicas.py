"""Two replicas of the app behind nginx (deploy/nginx.conf), sharing one real Redis: the
lecturer on one replica opens a room and asks a question, students on the other replica answer
(one of them through nginx, over its WebSocket upgrade), and the lecturer sees the counts; the
lecturer's link opened on the other replica finds the room in Redis; an upload on Your own
numbers works through nginx (sticky: it reaches the replica that holds the session); and
deploy/check.py, as deploy/README.md runs it, passes against the cluster."""

import contextlib
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import pytest

import attnviz
from attnviz.files.export import all_steps_npz
from tools.browser import (
    ROOT,
    chart_data,
    error_count,
    own_browsers,
    wait_for_app,
    wait_for_rows,
    wait_for_run,
)
from tools.classroom_browser import tab_in_room, tab_tap_option, tabs_said

pytestmark = [pytest.mark.replicas, pytest.mark.browser]

TIMEOUT = 90  # s: a protocol phone's longest wait on a loaded machine; never a result


def button(page, text):
    return page.locator("[data-testid=stMain] button", has_text=text)


def test_two_replicas_behind_nginx_share_a_room(browser, cluster, tmp_path):
    a, b, proxy = cluster.urls
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        lecturer = context.new_page()
        lecturer.goto(f"{a}/Classroom")
        button(lecturer, "Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        button(lecturer, "Ask this question").click()
        lecturer.wait_for_selector("text=Answered", timeout=60_000)
        with contextlib.ExitStack() as stack:  # each its own session, no cookie: a student each
            phones = [
                tab_in_room(stack, url, code, f"phone {n} on {url}", TIMEOUT)
                for n, url in enumerate((b, b, proxy), start=1)  # the last through nginx
            ]
            for phone, k in zip(phones, (0, 1, 1), strict=True):
                before = tab_tap_option(phone, k, acknowledged="Your answer: ")
                assert phone.said("you can change it until the reveal", before), phone.texts
            assert phones[-1].replica is not None  # nginx's WebSocket upgrade named a replica
            lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=3 of 3", timeout=60_000)
            for phone in phones:
                assert not phone.exceptions and not phone.errors, phone.exceptions + phone.errors
        link = lecturer.locator("[data-testid=stExpander] [data-testid=stCode] code")
        link = link.text_content()  # the lecturer link, folded away
        other = context.new_page()  # on replica B: the room is found in Redis, not in A
        other.goto(b + link[link.index("/Classroom") :])
        button(other, "Reveal").click(timeout=90_000)
        other.wait_for_selector(".st-key-cls_lect_dist .js-plotly-plot", timeout=60_000)
        counts = other.locator(".st-key-cls_lect_dist .js-plotly-plot").evaluate(
            "gd => Array.from(gd._fullData[0].y)"
        )
        assert counts[:2] == [1, 2] and sum(counts) == 3
        assert error_count(lecturer) == 0 and error_count(other) == 0
        for page in [lecturer, other]:
            page.close()  # their polls would compete with the upload's page for the CPU

        example = attnviz.compute(attnviz.Settings(text="to be or not", d_model=5, d_k=3))
        (tmp_path / "steps.npz").write_bytes(all_steps_npz(example))
        upload = context.new_page()
        upload.goto(f"{proxy}/Your_own_numbers")
        try:
            wait_for_app(upload, "A")
        except Exception:
            upload.screenshot(path="test-artifacts/replica-upload.png")
            raise
        upload.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(
            tmp_path / "steps.npz"
        )
        upload.wait_for_selector("text=Read X, W_Q, W_K and W_V from steps.npz", timeout=60_000)
        wait_for_rows(upload, "A", len(example.labels))
        assert chart_data(upload, "A")["ticks"] == example.labels
        assert error_count(upload) == 0
    finally:
        context.close()


def test_a_two_round_question_across_replicas(browser, cluster):
    """Peer instruction with the lecturer on replica A and the phones on replica B: each step
    reaches them through Redis, each phone keeps its first answer, the reveal's counts agree."""
    a, b, _ = cluster.urls
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    first, second = [0, 1, 1], [1, 1, 2]
    try:
        lecturer = context.new_page()
        lecturer.goto(f"{a}/Classroom")
        button(lecturer, "Open a room").click(timeout=90_000)
        code = lecturer.locator(".st-key-cls_code h1").inner_text(timeout=60_000).strip()
        lecturer.get_by_text("Vote, discuss, revote", exact=True).click()  # asks two rounds
        wait_for_run(lecturer)
        button(lecturer, "Ask this question").click()
        lecturer.wait_for_selector("text=Round 1 of 2", timeout=60_000)
        with contextlib.ExitStack() as stack:
            phones = [tab_in_room(stack, b, code, f"phone {n}", TIMEOUT) for n in (1, 2, 3)]
            until_ends = "until the lecturer ends the round"
            for phone, k in zip(phones, first, strict=True):
                before = tab_tap_option(phone, k, acknowledged="Your answer: ")
                assert phone.said(until_ends, before), phone.texts[before:]
            lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=3 of 3", timeout=60_000)
            for label, seen in (
                ("End round 1", "Round 1 has ended"),
                ("Discuss with your neighbour", "Discuss with your neighbour"),
                ("Round 2", "In round 1 you answered"),
            ):
                since = [len(phone.texts) for phone in phones]
                button(lecturer, label).click(timeout=60_000)
                tabs_said(phones, seen, since)
            for phone, k, again, round_2 in zip(phones, first, second, since, strict=True):
                assert phone.said(f"In round 1 you answered **{'ABC'[k]}**", round_2)  # its own
                before = tab_tap_option(phone, again, round_2, acknowledged="Your answer: ")
                assert phone.said(until_ends, before), phone.texts[before:]
            lecturer.wait_for_selector("[data-testid=stMetricValue] >> text=3 of 3", timeout=60_000)
            button(lecturer, "End round 2").click(timeout=60_000)
            lecturer.locator(".st-key-cls_reveal button").click(timeout=60_000)
            lecturer.wait_for_selector(".st-key-cls_lect_rounds .js-plotly-plot", timeout=60_000)
            rounds = lecturer.locator(".st-key-cls_lect_rounds .js-plotly-plot").evaluate(
                "gd => gd._fullData.map(t => Array.from(t.y))"
            )
            assert [r[:3] for r in rounds] == [[1, 2, 0], [0, 2, 1]]
            for phone in phones:
                phone.until(lambda p=phone: "cls_moves" in p.charts, "who moved where")
            assert error_count(lecturer) == 0
            for phone in phones:
                assert not phone.exceptions and not phone.errors, phone.exceptions + phone.errors
    finally:
        context.close()


def test_a_lecturer_link_works_once_and_no_referer_carries_it(browser, cluster):
    """Through nginx: the lecturer link opened in a second browser moves the controls there;
    its key is then in no address of that page and in no Referer of its requests, and the
    link opens nothing a second time; the first browser's reload has no controls."""
    _, _, proxy = cluster.urls
    with own_browsers(browser, viewport={"width": 1280, "height": 900}) as open_page:
        lecturer = open_page()
        lecturer.goto(f"{proxy}/Classroom")
        button(lecturer, "Open a room").click(timeout=90_000)
        lecturer.locator(".st-key-cls_close button").wait_for(timeout=60_000)
        link = lecturer.locator("[data-testid=stExpander] [data-testid=stCode] code")
        link = link.text_content().strip()
        key = parse_qs(urlsplit(link).query)["key"][0]
        laptop, referers = open_page(), []
        laptop.on("request", lambda request: referers.append(request.headers.get("referer", "")))
        laptop.goto(proxy + link[link.index("/Classroom") :])
        laptop.locator(".st-key-cls_close button").wait_for(timeout=90_000)  # controls here
        wait_for_run(laptop)
        assert key not in laptop.url and "room=" not in laptop.url
        assert len(referers) > 10 and not any(key in referer for referer in referers)
        again = open_page()
        again.goto(proxy + link[link.index("/Classroom") :])
        again.wait_for_selector("text=a lecturer link works once", timeout=90_000)
        lecturer.reload()
        lecturer.wait_for_selector("text=Join a room", timeout=90_000)
        assert lecturer.locator(".st-key-cls_close button").count() == 0
        assert all(error_count(page) == 0 for page in (lecturer, laptop))


def test_the_recipes_check_passes_through_nginx(cluster):
    """deploy/check.py, as deploy/README.md's step 6 runs it, against the cluster's nginx:
    /api/health says the room store (Redis) is ok, a room is answered from both replicas and
    the count read back."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "deploy" / "check.py"), cluster.proxy, "--timeout", "120"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "/api/health: ok (the room store: redis," in done.stdout
    assert done.stdout.splitlines()[-1].startswith("OK: answers from 127.0.0.1:")
