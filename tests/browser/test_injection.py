"""A shared link cannot put its own markup on a page: tokens (and the real model's sentences, the
tiny GPT's training text) that are Markdown, HTML or a URL show as typed on every page.

Every page is opened on one server of this file's own with such tokens; the test fails on any
link or image to the foreign host, any request to it, and any bold, formula, colour or HTML
element made from a token. The foreign host never answers: its requests are aborted."""

from urllib.parse import urlencode, urlsplit

import pytest

from tests.helpers import PAGE_PATHS
from tools.browser import streamlit_server, wait_for_run

pytestmark = pytest.mark.browser

HOST = "attacker.invalid"
# Each marker word, with the syntax that must stay visible in front of it wherever it shows.
MARKED = {
    "boldtok": "**boldtok",
    "linktok": "[linktok",
    "imgtok": "![imgtok",
    "redtok": ":red[redtok",
    "htmltok": "<b>htmltok",
    "emtok": "_emtok",
}
TOKENS = (
    f"**boldtok** [linktok](http://{HOST}/phish) ![imgtok](http://{HOST}/pixel.png) "
    f"$mathtok^{{7}}$ :red[redtok] <b>htmltok</b> http://{HOST}/bare _emtok_ www.{HOST}"
)
SENTENCE = f"the **boldtok** cat saw [linktok](http://{HOST}/a) and $mathtok^{{7}}$ ok"
QUERY = {
    "tokens": TOKENS,
    "d_k": "2",
    "seed": "3",
    "edit": "1,0,2.5",
    "model_a": SENTENCE,
    "model_b": SENTENCE + " again",
    "gpt_task": "text",
    "gpt_text": f"**boldtok** [linktok](http://{HOST}/x) " * 3,
    "gpt_steps": "20",
}

FOUND = """([host, marked]) => {
    const bad = [];
    const where = el => {
        const box = el.closest("[data-testid]");
        return box ? `${box.dataset.testid}: "${box.textContent.slice(0, 60)}"` : "?";
    };
    for (const el of document.querySelectorAll("[href], [src], [*|href]")) {
        const url = el.getAttribute("href") || el.getAttribute("src")
            || el.getAttributeNS("http://www.w3.org/1999/xlink", "href") || "";
        let to = "";
        try { to = new URL(url, location.href).hostname; } catch (e) { to = url; }
        if (to.endsWith(host)) bad.push(`<${el.tagName}> to ${url} in ${where(el)}`);
    }
    for (const el of document.querySelectorAll(".katex annotation, .katex-mathml")) {
        if (el.textContent.includes("mathtok")) bad.push(`a formula in ${where(el)}`);
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent.replaceAll("\u2060", "");  // md_escape's word joiners
        for (const [word, shown] of Object.entries(marked)) {
            if (text.includes(word) && !text.includes(shown)) {
                const el = node.parentElement;
                const what = `"${text.slice(0, 60)}" in <${el.tagName}> of ${where(el)}`;
                bad.push(`${what} lost "${shown}"`);
            }
        }
    }
    return bad;
}"""


@pytest.fixture(scope="module")
def own_server():
    with streamlit_server() as url:
        yield url


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_tokens_in_a_link_show_as_typed(page, own_server, path):
    requested = []
    page.on("request", lambda r: urlsplit(r.url).hostname == HOST and requested.append(r.url))
    page.route(f"**://{HOST}/**", lambda route: route.abort())
    page.goto(f"{own_server}/{path}?{urlencode(QUERY)}")
    page.wait_for_selector("[data-testid=stMain] [data-testid=stMarkdown]", timeout=90_000)
    wait_for_run(page)
    page.wait_for_timeout(300)  # images start loading after the run
    found = page.evaluate(FOUND, [HOST, MARKED])
    assert page.locator("[data-testid=stException]").count() == 0
    assert not (requested or found), "\n".join(found + [f"requested {url}" for url in requested])
