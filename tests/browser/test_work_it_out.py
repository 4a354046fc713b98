"""Work it out in a browser: the worksheet downloads as a PDF that holds the exercise and its
key (typing answers, hints and the score are wiring: tests/pages/test_work_it_out.py)."""

import io

import pypdf
import pytest

from attnviz.exercises import make_exercise
from attnviz.exercises.notation import shown
from tools.browser import error_count, wait_for_run

pytestmark = pytest.mark.browser


def test_the_worksheet_downloads_with_its_exercise_and_key(page, server):
    ex = make_exercise(3, 1)  # 5 blanks: a light page
    page.goto(f"{server}/Work_it_out?ex_level=3&ex_seed=1")
    button = page.get_by_role("button", name="⬇ Download worksheet (PDF)")
    button.wait_for(timeout=90_000)
    wait_for_run(page)
    with page.expect_download(timeout=60_000) as download:
        button.click()
    pdf = download.value.path().read_bytes()
    texts = [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages]
    assert "Level 3 · seed 1" in texts[0] and "Answer key" in texts[1]
    for b in ex.blanks:
        assert shown(b.expected, 4).replace("-", "−") in texts[1]
    assert download.value.suggested_filename == "attnviz-worksheet-level3-seed1.pdf"
    assert error_count(page) == 0
