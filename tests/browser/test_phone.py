"""On a phone (390 x 844, touch): Step by step and Predict then reveal are usable, with no
sideways scroll of the page, a readable pipeline, a tap on a cell that opens its inspector,
and a question answered by taps."""

import pytest

import attnviz
from tools.browser import cell_centre, error_count, wait_for_app, wait_for_run

pytestmark = pytest.mark.browser

PHONE = dict(
    viewport={"width": 390, "height": 844},
    is_mobile=True,
    has_touch=True,
    user_agent=(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
    ),
)


@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    yield page
    context.close()


def page_width(page):
    """The widest scrolling width of the document and of Streamlit's main area."""
    return page.evaluate(
        """() => Math.max(document.documentElement.scrollWidth,
        ...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]
            .map(e => e.scrollWidth))"""
    )


def test_step_by_step_on_a_phone(phone, server, artifacts):
    phone.goto(f"{server}/Step_by_step")
    wait_for_app(phone, "S")
    assert page_width(phone) <= 390  # nothing makes the page scroll sideways
    sizes = phone.evaluate(
        """() => [...document.querySelectorAll('.st-key-pipeline_narrow *')]
        .filter(e => e.childNodes.length && [...e.childNodes].some(c => c.nodeType === 3
            && c.textContent.trim()))
        .map(e => parseFloat(getComputedStyle(e).fontSize))"""
    )
    assert sizes and min(sizes) >= 12  # the pipeline reflowed for the phone: readable text
    assert phone.locator(".st-key-pipeline_wide").is_hidden()
    assert phone.locator(".modebar-container").first.is_hidden()  # no toolbar over titles
    phone.screenshot(path=artifacts / "phone-step.png")
    x, y = cell_centre(phone, "S", 3, 1)
    phone.touchscreen.tap(x, y)
    phone.wait_for_selector("text=Query on (row 3) and key cat (column 1)", timeout=60_000)
    r = attnviz.compute(attnviz.Settings()).result
    assert f"{r.scores[3, 1]:.6g}" in phone.locator("[data-testid=stMain]").inner_text()
    assert error_count(phone) == 0


def test_predict_then_reveal_on_a_phone(phone, server):
    question = "[data-testid=stMain] [data-testid=stRadio]"
    phone.goto(f"{server}/Predict_then_reveal")
    phone.wait_for_selector(question, timeout=90_000)
    wait_for_run(phone)
    assert page_width(phone) <= 390
    option = phone.locator(question).first.locator("[role=radiogroup] label").first
    assert option.bounding_box()["height"] >= 44  # a tap target a thumb can hit
    option.tap()
    phone.wait_for_selector("text=Why:", timeout=60_000)
    assert error_count(phone) == 0
