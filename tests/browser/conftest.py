"""Fixtures of the browser tests: one Chromium and one `streamlit run` server for the tests of
this folder, and a fresh page (its own browser context, so its own Streamlit session) for each
test; the cluster of Redis, two replicas and nginx for the two files that use it. Package scope:
Playwright is stopped before any test elsewhere starts its own."""

import pytest

from tools.browser import ARTIFACTS, launch_chromium, streamlit_server
from tools.services import replicas_cluster


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


@pytest.fixture(scope="package")
def cluster(artifacts, needs_redis, needs_nginx):
    """One ``tools.services.Cluster`` for test_faults.py and test_replicas.py, which
    plugin.py's scheduler hands to one worker together: each test opens a room of its own, and
    a test that stops a process starts it again before it ends."""
    with replicas_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="package")
def context(browser):
    """One browser context for the tests of this folder: its pages share the HTTP and code
    caches (Streamlit's and Plotly's scripts load once, not once a test: about 5 s each),
    while each page is a Streamlit session of its own (a session is a page's connection)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context
    context.close()


@pytest.fixture
def page(context):
    """A new page, its own Streamlit session; ``page.dialogs`` lists the message of every
    dialog (alert) it opened."""
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    page.close()
