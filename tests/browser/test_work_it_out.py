"""Work it out in a browser: one wrong answer, one hint, then the right answer and the score;
then the worksheet downloads as a PDF that holds the exercise and its key."""

import io

import pypdf
import pytest

from attnviz.exercises import make_exercise
from attnviz.exercises.notation import shown
from tools.browser import error_count, wait_for_run

pytestmark = pytest.mark.browser


def test_fill_an_exercise_take_a_hint_and_download_its_worksheet(page, server):
    ex = make_exercise(3, 1)  # 5 blanks: a light page
    blank = ex.blanks[0]
    page.goto(f"{server}/Work_it_out?ex_level=3&ex_seed=1")
    box = page.locator(f".st-key-ex_ans_{blank.key} input")
    box.wait_for(timeout=90_000)
    wait_for_run(page)
    box.fill(shown(blank.expected + 2))
    box.press("Enter")
    page.wait_for_selector("text=Not yet", timeout=60_000)
    wait_for_run(page)
    page.locator(f".st-key-ex_hint_{blank.key} button").click()
    page.wait_for_selector("text=💡", timeout=60_000)
    wait_for_run(page)
    main = page.locator("[data-testid=stMain]")
    assert "A product of an (a × b) and a (b × c) matrix is a × c." in main.inner_text()
    box.fill(shown(blank.expected, 6))
    box.press("Enter")
    page.wait_for_selector("text=✓ Right", timeout=60_000)
    page.wait_for_selector(f"text=Score: 1 of {len(ex.blanks)} right", timeout=60_000)
    wait_for_run(page)
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="⬇ Download worksheet (PDF)").click()
    pdf = download.value.path().read_bytes()
    texts = [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages]
    assert "Level 3 · seed 1" in texts[0] and "Answer key" in texts[1]
    for b in ex.blanks:
        assert shown(b.expected, 4).replace("-", "−") in texts[1]
    assert download.value.suggested_filename == "attnviz-worksheet-level3-seed1.pdf"
    assert error_count(page) == 0
