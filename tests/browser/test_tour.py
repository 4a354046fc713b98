"""One visit to every page, by a hostile link, as the page's first visit on a server: what only a
browser shows of a page, checked on that one load.

* It draws: its first chart (or its first control) appears, no exception, no error box; where it
  draws the sidebar example's A, the browser holds exactly the numbers of the link.
* For every reader: no serious or critical axe-core problem, a name on every chart.
* A shared link cannot put its own markup on a page: the link's tokens (and the real model's
  sentences, the tiny GPT's training text) are Markdown, HTML and URLs, and the page shows them
  as typed: no link or image to the foreign host, no request to it (its requests are aborted),
  no bold, formula, colour or HTML element made from a token.

Home, the first, is its server's first request (a deep link on a fresh server). The sidebar's
menu, its order and its links keep the settings: the last test, on the shared server.
"""

from urllib.parse import urlencode, urlsplit

import numpy as np
import pytest

import attnviz
from attnviz.files.own_numbers import EXERCISE, NAMES
from attnviz.links.course import PAGES
from tests.helpers import PAGE_PATHS, assert_drawn
from tools.browser import (
    accessibility_problems,
    chart_data,
    error_count,
    streamlit_server,
    wait_for_app,
)

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
EDIT = (1, 0, 2.5)  # X[1, 0] typed as 2.5: the edit's banner names a token too
QUERY = {
    "tokens": TOKENS,
    "d_k": "2",
    "seed": "3",
    "mask": "causal",
    "edit": ",".join(map(str, EDIT)),
    "model_a": SENTENCE,
    "model_b": SENTENCE + " again",
    "gpt_task": "text",
    "gpt_text": f"**boldtok** [linktok](http://{HOST}/x) " * 3,
    "gpt_steps": "20",
}
# What shows that a page has drawn: a heatmap, except on the quiz (no chart until an answer),
# the geometry page and the exercises (boxes to type in), the deck and the classroom.
READY = {
    "Predict_then_reveal": "[data-testid=stMain] [data-testid=stRadio]",
    "Attention_as_geometry": ".js-plotly-plot .barlayer",  # arrows and bars, no heatmap
    "Work_it_out": "[data-testid=stMain] [data-testid=stTextInput]",
    "Lecture_deck": "[data-testid=stMain] [data-testid=stCode]",  # a table and its link
    "Classroom": ".st-key-cls_open button",  # no room yet: the button that opens one
}
HEATMAP = ".js-plotly-plot .heatmaplayer"
DRAWS_A = ("Step_by_step", "Your_own_numbers")  # the pages that draw the link's A (key "A")
# Every image the page shows has loaded or failed (an <img> a token made would have asked the
# foreign host by then), and every chart has been drawn.
SETTLED = """() => Array.from(document.images).every(img => img.complete)"""

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


def expected_attention(path):
    """(A, mask) that ``path`` draws under the key "A" for QUERY: the link's example with X's
    edit (Step by step), or the page's own matrices with the link's mask (Your own numbers)."""
    i, c, value = EDIT
    if path == "Your_own_numbers":
        X, W_Q, W_K, W_V = (np.array(EXERCISE[name], float) for name in NAMES)
    else:
        settings, _ = attnviz.from_query(QUERY)
        r = attnviz.compute(settings).result
        X, W_Q, W_K, W_V = r.X.copy(), r.W_Q, r.W_K, r.W_V
    X[i, c] = value
    mask = np.tri(len(X), dtype=bool)  # the link's causal mask
    return attnviz.self_attention(X, W_Q, W_K, W_V, mask=mask).attention, mask


@pytest.fixture(scope="module")
def fresh_server():
    """A server of this file's own: each page below is opened first here, by its deep link."""
    with streamlit_server() as url:
        yield url


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_by_a_hostile_link_as_its_first_visit(page, artifacts, fresh_server, path):
    requested = []
    page.on("request", lambda r: urlsplit(r.url).hostname == HOST and requested.append(r.url))
    page.route(f"**://{HOST}/**", lambda route: route.abort())
    page.goto(f"{fresh_server}/{path}?{urlencode(QUERY)}")
    page.wait_for_selector(READY.get(path, HEATMAP), timeout=90_000)
    wait_for_app(page)
    page.wait_for_function(SETTLED, timeout=30_000)
    assert error_count(page) == 0
    page.screenshot(path=artifacts / f"page-{path or 'home'}.png")
    found = page.evaluate(FOUND, [HOST, MARKED])
    assert not (requested or found), "\n".join(found + [f"requested {url}" for url in requested])
    assert accessibility_problems(page) == []  # axe-core's serious and critical, unnamed charts
    if path in DRAWS_A:
        A, mask = expected_attention(path)
        assert_drawn(chart_data(page, "A")["z"], A, mask=mask)


def test_the_sidebar_menu_names_home_and_its_links_keep_the_settings(page, server):
    query = {"tokens": "a b c a", "d_k": "3", "seed": "5"}
    page.goto(f"{server}/Step_by_step?{urlencode(query)}")
    wait_for_app(page, "A")
    sidebar = page.locator("[data-testid=stSidebar]")
    assert sidebar.locator("[data-testid=stSidebarNav]").count() == 0  # Streamlit's own menu
    links = sidebar.locator("[data-testid=stPageLink-NavLink]")
    labels = [text.strip() for text in links.all_inner_texts()]
    assert labels == [page.label for page in PAGES]  # the course's order
    for href in links.evaluate_all("els => els.map(e => e.href)"):
        assert "d_k=3" in href and "tokens=a+b+c+a" in href
    links.filter(has_text="Home").click()
    page.wait_for_url(lambda url: url.startswith(f"{server}/?"), timeout=60_000)
    wait_for_app(page, "home_A")
    settings, _ = attnviz.from_query(query)
    assert_drawn(chart_data(page, "home_A")["z"], attnviz.compute(settings).result.attention)
    assert error_count(page) == 0
