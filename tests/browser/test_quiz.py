"""The quiz page in a browser: an answer reveals the truth, markup stays text."""

import pytest

from tools.browser import error_count, wait_for_run

pytestmark = pytest.mark.browser

QUESTION = "[data-testid=stMain] [data-testid=stRadio]"


def test_answering_a_quiz_question_reveals_the_truth(page, server):
    page.goto(f"{server}/Predict_then_reveal?tokens=%3Cb%3Ex%3C%2Fb%3E+y+z")
    page.wait_for_selector(QUESTION, timeout=90_000)
    wait_for_run(page)
    first = page.locator(QUESTION).first
    first.locator("[role=radiogroup] label").first.click()
    page.wait_for_selector("text=Why:", timeout=60_000)
    page.wait_for_selector("text=Score:", timeout=60_000)  # drawn by the same rerun, a bit later
    wait_for_run(page)
    alerts = page.locator(
        "[data-testid=stAlertContentSuccess], [data-testid=stAlertContentWarning]"
    )
    assert alerts.count() == 1
    assert "Score:" in page.locator("[data-testid=stMain]").inner_text()
    assert page.locator("[data-testid=stMain] b").filter(has_text="x").count() == 0
    assert error_count(page) == 0
