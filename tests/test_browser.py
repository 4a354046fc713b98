"""What only a browser shows: `streamlit run` + Debian's Chromium, driven by Playwright."""

import math
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import sync_playwright

import attnviz
from attnviz.charts import MAX_LABEL_CHARS
from attnviz.export import all_steps_npz
from attnviz.own_numbers import EXERCISE, NAMES
from tests.helpers import PAGES, assert_drawn
from tools.browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    cell_centre,
    chart_data,
    error_count,
    hover_cell,
    streamlit_server,
    wait_for_app,
    wait_for_rows,
)

pytestmark = pytest.mark.browser

# The URL path of each page: classic multipage mode drops the number prefix and ".py".
PAGE_PATHS = [""] + [Path(p).stem.split("_", 1)[1] for p in PAGES]
# What shows that a page has drawn: a heatmap, except on the quiz (no chart until an answer).
READY = {"Predict_then_reveal": "[data-testid=stMain] [data-testid=stRadio]"}
HEATMAP = ".js-plotly-plot .heatmaplayer"


@pytest.fixture(scope="module")
def browser():
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed: apt-get install chromium"
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def server():
    with streamlit_server() as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()


def assert_close(z, expected):
    got = np.array(z, dtype=float)
    assert got.shape == expected.shape
    assert_drawn(got, expected)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_opens_by_its_url_on_a_fresh_server(page, path):
    query = {"tokens": "a b c a", "d_k": "3", "seed": "5", "mask": "causal"}
    with streamlit_server() as url:  # a fresh server whose first request is this deep link
        page.goto(f"{url}/{path}?{urlencode(query)}")
        wait_for_app(page)
        page.wait_for_selector(READY.get(path, HEATMAP), timeout=90_000)
        wait_for_app(page)
        assert error_count(page) == 0
        page.screenshot(path=ARTIFACTS / f"page-{path or 'home'}.png")
        key = "A" if path else "home_A"
        if page.locator(f".st-key-{key}").count():
            settings, _ = attnviz.from_query(query)
            expected = attnviz.compute(settings).result.attention
            if path == "Your_own_numbers":  # its own matrices, with the sidebar's mask
                mats = (np.array(EXERCISE[name], float) for name in NAMES)
                expected = attnviz.self_attention(*mats, mask=np.tri(3, dtype=bool)).attention
            assert_close(chart_data(page, key)["z"], expected)


def test_typing_tokens_changes_the_charts(page, server):
    page.goto(f"{server}/Step_by_step")
    wait_for_app(page, "A")
    assert chart_data(page, "A")["ticks"][1] == "cat"
    box = page.locator(".st-key-attnviz_text textarea")
    box.fill("red green blue green")
    box.press("Control+Enter")
    wait_for_rows(page, "A", 4)
    data = chart_data(page, "A")
    assert data["ticks"] == ["red", "green (1)", "blue", "green (2)"]
    expected = attnviz.compute(attnviz.Settings(text="red green blue green")).result.attention
    assert_close(data["z"], expected)
    assert "tokens=red+green+blue+green" in page.url
    home = page.locator("[data-testid=stSidebar] [data-testid=stPageLink-NavLink]").first
    assert "tokens=red+green+blue+green" in home.get_attribute("href")  # this run's settings
    assert error_count(page) == 0


def test_hover_and_click_a_score_cell_opens_the_inspector(page, server):
    page.goto(f"{server}/Step_by_step")
    (x, y), hover = hover_cell(page, "S", 3, 1)
    r = attnviz.compute(attnviz.Settings()).result
    assert "on (row 3)" in hover and "cat (column 1)" in hover
    assert f"{r.scores[3, 1]:.6g}" in hover
    page.mouse.click(x, y)
    page.wait_for_selector("text=Query on (row 3) and key cat (column 1)", timeout=60_000)
    page.screenshot(path=ARTIFACTS / "inspector.png")
    assert error_count(page) == 0


def test_clicking_a_cell_of_K_shows_the_sum_that_makes_it(page, server):
    page.goto(f"{server}/Step_by_step")
    (x, y), hover = hover_cell(page, "K", 3, 1)
    r = attnviz.compute(attnviz.Settings()).result
    assert f"K_ic = {r.K[3, 1]:.6g}" in hover
    page.mouse.click(x, y)
    caption = "Row 3 of X times column 1 of W_K: the products add up to"
    page.wait_for_selector(f"text={caption} {r.K[3, 1]:.6g}", timeout=60_000)
    assert error_count(page) == 0


def test_markup_tokens_show_as_typed_and_run_nothing(page, server):
    tokens = "<img/src=x/onerror=alert(1)> <b>x</b> %{z} <script>alert(2)</script>"
    page.goto(f"{server}/Step_by_step?{urlencode({'tokens': tokens})}")
    wait_for_app(page, "A")
    time.sleep(1)  # give an injected handler the chance to fire
    assert page.dialogs == []
    ticks = page.locator(".st-key-A .ytick text").all_text_contents()
    cut = MAX_LABEL_CHARS - 1  # long labels are cut on the axis (the hover shows them whole)
    assert ticks == [t if len(t) <= MAX_LABEL_CHARS else t[:cut] + "…" for t in tokens.split()]
    assert page.locator(".st-key-A svg img, .st-key-A svg b").count() == 0
    assert page.locator("img[src=x]").count() == 0
    assert error_count(page) == 0


def test_a_shared_link_reproduces_the_numbers_exactly(page, server):
    query = {
        "tokens": "to be or not to be",
        "d_model": "12",
        "d_k": "5",
        "d_v": "3",
        "seed": "42",
        "positions": "on",
        "temperature": "0.7",
        "scale": "off",
    }
    page.goto(f"{server}/Step_by_step?{urlencode(query)}")
    wait_for_app(page, "output")
    settings, warnings = attnviz.from_query(query)
    assert not warnings
    r = attnviz.compute(settings).result
    assert_close(chart_data(page, "A")["z"], r.attention)
    assert_close(chart_data(page, "output")["z"], r.output)


def test_masked_cells_show_no_number(page, server):
    page.goto(f"{server}/Step_by_step?mask=causal")
    wait_for_app(page, "A")
    z = chart_data(page, "A")["z"]
    assert all(z[i][j] == 0 for i in range(6) for j in range(i + 1, 6))
    assert not any(math.isnan(v) for row in z for v in row)


def test_clicking_a_cell_of_the_custom_mask_blocks_it(page, server):
    page.goto(f"{server}/Masks_and_temperature")
    wait_for_app(page, "mask_cells")
    page.locator(".st-key-attnviz_lesson_mask label").filter(has_text="custom").click()
    wait_for_app(page, "mask_cells")
    page.wait_for_selector(".st-key-attnviz_lesson_toggle", timeout=60_000)
    x, y = cell_centre(page, "mask_cells", 0, 1)
    page.mouse.click(x, y)
    page.wait_for_function(
        """() => {
            const gd = document.querySelector('.st-key-mask_cells .js-plotly-plot');
            return gd && gd._fullData[0].z[0][1] === 0;
        }""",
        timeout=60_000,
    )
    wait_for_app(page, "masked_A")
    assert chart_data(page, "masked_A")["z"][0][1] == 0
    assert math.isnan(chart_data(page, "masked_logits")["z"][0][1])  # −∞: an empty cell
    assert error_count(page) == 0


def test_answering_a_quiz_question_reveals_the_truth(page, server):
    page.goto(f"{server}/Predict_then_reveal?tokens=%3Cb%3Ex%3C%2Fb%3E+y+z")
    page.wait_for_selector(READY["Predict_then_reveal"], timeout=90_000)
    wait_for_app(page)
    first = page.locator("[data-testid=stMain] [data-testid=stRadio]").first
    first.locator("[role=radiogroup] label").first.click()
    page.wait_for_selector("text=Why:", timeout=60_000)
    page.wait_for_selector("text=Score:", timeout=60_000)  # drawn by the same rerun, a bit later
    wait_for_app(page)
    alerts = page.locator(
        "[data-testid=stAlertContentSuccess], [data-testid=stAlertContentWarning]"
    )
    assert alerts.count() == 1
    assert "Score:" in page.locator("[data-testid=stMain]").inner_text()
    assert page.locator("[data-testid=stMain] b").filter(has_text="x").count() == 0
    assert error_count(page) == 0


def test_the_sidebar_menu_names_home_and_its_links_keep_the_settings(page, server):
    query = {"tokens": "a b c a", "d_k": "3", "seed": "5"}
    page.goto(f"{server}/Step_by_step?{urlencode(query)}")
    wait_for_app(page, "A")
    sidebar = page.locator("[data-testid=stSidebar]")
    assert sidebar.locator("[data-testid=stSidebarNav]").count() == 0  # Streamlit's own menu
    links = sidebar.locator("[data-testid=stPageLink-NavLink]")
    labels = [text.strip() for text in links.all_inner_texts()]
    assert labels == ["Home"] + [Path(p).stem.split("_", 1)[1].replace("_", " ") for p in PAGES]
    for href in links.evaluate_all("els => els.map(e => e.href)"):
        assert "d_k=3" in href and "tokens=a+b+c+a" in href
    links.filter(has_text="Home").click()
    page.wait_for_url(lambda url: url.startswith(f"{server}/?"), timeout=60_000)
    wait_for_app(page, "home_A")
    settings, _ = attnviz.from_query(query)
    assert_close(chart_data(page, "home_A")["z"], attnviz.compute(settings).result.attention)
    assert error_count(page) == 0


def test_uploading_a_download_and_typing_a_matrix_on_your_own_numbers(page, server, tmp_path):
    example = attnviz.compute(attnviz.Settings(text="to be or not", d_model=5, d_k=3, d_v=2))
    (tmp_path / "steps.npz").write_bytes(all_steps_npz(example))
    page.goto(f"{server}/Your_own_numbers")
    wait_for_app(page, "A")
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(
        tmp_path / "steps.npz"
    )
    page.wait_for_selector("text=Read X, W_Q, W_K and W_V from steps.npz", timeout=60_000)
    wait_for_app(page, "A")
    data = chart_data(page, "A")
    assert data["ticks"] == example.labels
    assert_close(data["z"], example.result.attention)
    box = page.locator(".st-key-attnviz_own_X textarea")
    box.fill("1 0 0 0 1\n0 1 0 0 1\n<b>x</b>")  # a typo: the box keeps it, an error says where
    box.press("Control+Enter")
    page.wait_for_selector("text=X, row 3, entry 1: '<b>x</b>' is not a number", timeout=60_000)
    assert page.locator("[data-testid=stMain] b").filter(has_text="x").count() == 0
    assert box.input_value() == "1 0 0 0 1\n0 1 0 0 1\n<b>x</b>"
    box.fill("1 0 0 0 1\n0 1 0 0 1\n0 0 1 1 0")
    box.press("Control+Enter")
    wait_for_rows(page, "A", 3)
    r = example.result
    X = np.array([[1, 0, 0, 0, 1], [0, 1, 0, 0, 1], [0, 0, 1, 1, 0]], float)
    W = [np.round(np.asarray(M, float), 17) for M in (r.W_Q, r.W_K, r.W_V)]
    assert_close(chart_data(page, "A")["z"], attnviz.self_attention(X, *W).attention)
    assert "X=1%2C0%2C0%2C0%2C1%3B0%2C1" in page.url or "X=1,0,0,0,1;0,1" in page.url
    assert error_count(page) == 0
