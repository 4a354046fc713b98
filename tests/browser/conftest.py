"""Fixtures of the browser tests: one Chromium and one `streamlit run` server for the tests of
this folder, and a fresh page (its own browser context, so its own Streamlit session) for each
test. Package scope: Playwright is stopped before any test elsewhere starts its own."""

import pytest

from tools.browser import ARTIFACTS, launch_chromium, streamlit_server


@pytest.fixture(scope="session")
def artifacts():
    """test-artifacts/: screenshots, and the servers' logs."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="package")
def browser(artifacts):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        yield browser
        browser.close()


@pytest.fixture(scope="package")
def server(artifacts):
    with streamlit_server() as url:
        yield url


@pytest.fixture
def page(browser):
    """A new page; ``page.dialogs`` lists the message of every dialog (alert) it opened."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()
