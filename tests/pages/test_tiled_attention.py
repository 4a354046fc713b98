"""The Tiled attention page: blocks, running values, the same output, memory."""

import numpy as np
import pytest

import attnviz
from attnviz import Settings, tiled_attention
from attnviz.limits import MAX_TILED_BLOCKS
from attnviz.tiled import attention_memory
from tests.helpers import (
    assert_drawn,
    chart_specs,
    decode,
    heatmap_z,
    run,
    run_more,
    set_widget,
    texts,
)

TILE = "app_pages/Tiled_attention.py"


TOL = {"rtol": 0, "atol": 1e-12}


POSITIONS = {"positions": "on"}


def expected_tiled(settings=None, b=2):
    ex = attnviz.compute(settings or Settings())
    r, s = ex.result, ex.settings
    t = tiled_attention(
        r.Q,
        r.K,
        r.V,
        block_size=b,
        mask=r.mask,
        scale=s.scale,
        temperature=s.temperature,
        trace=True,
    )
    return r, t


def test_tiled_default_steps_through_block_0_and_matches_the_full_output():
    at = run(TILE)
    assert not at.error
    r, t = expected_tiled()
    specs = chart_specs(at)
    assert_drawn(heatmap_z(specs["tile_logits"]), r.logits[:, 0:2])
    assert_drawn(heatmap_z(specs["tile_scores"]), r.scores[:, 0:2])
    assert_drawn(
        heatmap_z(specs["tile_weights"]), np.exp(r.logits[:, 0:2] - t.steps[0].row_max[:, None])
    )
    assert specs["tile_logits"]["layout"]["xaxis"]["ticktext"] == ["the (1)", "cat"]
    assert_drawn(heatmap_z(specs["tile_output"]), r.output)
    assert_drawn(heatmap_z(specs["tile_full_output"]), r.output)
    gap = np.max(np.abs(t.output - r.output))
    assert f"entries: **{gap:.3g}**" in texts(at)
    assert gap < 1e-12 and "the same answer" in texts(at)
    assert at.slider(key="tile_step").max == 2
    assert any(r"\tilde O' = e^{m - m'}" in el.value for el in at.latex)  # the formulas


def test_tiled_running_values_table():
    at = set_widget(run(TILE), "slider", "tile_step", 1)
    r, t = expected_tiled()
    table = at.dataframe[0].value
    step = t.steps[1]
    np.testing.assert_allclose(table["m before"], t.steps[0].row_max, **TOL)
    np.testing.assert_allclose(table["m′ after"], step.row_max, **TOL)
    np.testing.assert_allclose(table["rescale e^(m−m′)"], step.rescale, **TOL)
    np.testing.assert_allclose(table["l before"], t.steps[0].row_sum, **TOL)
    np.testing.assert_allclose(table["l′ after"], step.row_sum, **TOL)
    assert list(table.index) == ["the (1)", "cat", "sat", "on", "the (2)", "mat"]
    moved = int(np.sum((step.rescale < 1) & np.isfinite(step.row_max_before)))
    assert f"rose in **{moved} of 6 rows**" in texts(at) or "no row's maximum rose" in texts(at)
    assert_drawn(heatmap_z(chart_specs(at)["tile_logits"]), r.logits[:, 2:4])
    running = heatmap_z(chart_specs(at)["tile_running"])
    assert_drawn(running, step.output)
    assert f"up to **{np.max(np.abs(step.output - r.output)):.3g}**" in texts(at)


def test_tiled_last_block_is_the_output():
    at = set_widget(run(TILE), "slider", "tile_step", 2)
    r, _ = expected_tiled()
    np.testing.assert_allclose(heatmap_z(chart_specs(at)["tile_running"]), r.output, atol=1e-12)
    assert "This is the last block" in texts(at)


def test_tiled_row_update_shows_the_numbers():
    at = set_widget(run(TILE), "slider", "tile_step", 1)
    at = set_widget(at, "selectbox", "tile_row", 3)
    _, t = expected_tiled()
    step = t.steps[1]
    latex = texts(at, "latex")
    assert r"m'_{3} &= \max" in latex
    # the running max is over the scaled logits S', not S = QKᵀ (review 4, I17)
    assert r"S'_{3j}" in latex and r" S_{3j}" not in latex
    assert f"= {step.row_max[3]:.6g}" in latex
    assert f"{t.steps[0].row_sum[3]:.6g} + {step.weights[3].sum():.6g}" in latex
    assert f"= {step.row_sum[3]:.6g}" in latex


def test_block_size_changes_the_blocks():
    at = set_widget(run(TILE), "number_input", "tile_block", 4)
    r, _ = expected_tiled(b=4)
    assert at.slider(key="tile_step").max == 1
    assert_drawn(heatmap_z(chart_specs(at)["tile_logits"]), r.logits[:, :4])
    at = set_widget(at, "slider", "tile_step", 1)
    assert heatmap_z(chart_specs(at)["tile_logits"]).shape == (6, 2)  # the short last block
    at = set_widget(at, "number_input", "tile_block", 6)
    assert not at.slider and "one block holds every key" in texts(at, "caption")
    assert_drawn(heatmap_z(chart_specs(at)["tile_logits"]), r.logits)


def test_too_many_blocks_raise_b_with_a_warning():
    at = run(TILE, {"n": "100"})
    at = set_widget(at, "number_input", "tile_block", 1)
    used = -(-100 // MAX_TILED_BLOCKS)
    assert f"using b = {used}" in at.warning[0].value
    assert at.slider(key="tile_step").max == -(-100 // used) - 1


def test_fewer_tokens_reset_a_stale_block_and_row():
    at = set_widget(run(TILE), "slider", "tile_step", 2)
    at = set_widget(at, "selectbox", "tile_row", 5)
    at = run_more(at, text="just two words")
    assert at.slider(key="tile_step").value == 0
    assert at.selectbox(key="tile_row").value == 0


@pytest.mark.parametrize(
    "widgets",
    [
        {"text": "a b a b c"},
        {"d_k": 3, "d_v": 5},
        {"mask": "causal"},
        {"scale": False, "temperature": 0.5},
        {"text": "one"},
        {"generated": True},
    ],
    ids=["repeats", "dims", "causal", "scale-off", "one-token", "generated"],
)
def test_tiled_with_changed_settings(widgets):
    at = run(TILE, **widgets)
    assert not at.error
    settings = Settings(**widgets)
    r, t = expected_tiled(settings, b=2)
    specs = chart_specs(at)
    assert_drawn(heatmap_z(specs["tile_output"]), r.output)
    logits = np.where(np.isneginf(t.steps[0].logits), np.nan, t.steps[0].logits)  # -inf: empty
    assert_drawn(heatmap_z(specs["tile_logits"]), logits)
    if widgets.get("mask") == "causal":
        assert np.isnan(heatmap_z(specs["tile_logits"])[0, 1])  # -inf: query 0 may not see key 1
        at = set_widget(at, "slider", "tile_step", 2)
        m = f"{t.steps[2].row_max[0]:.6g}"  # row 0 sees none of keys 4..5: m stays, l' = l
        assert rf"\max({m}, -\infty) = {m}" in texts(at, "latex")


def test_memory_chart_follows_n_and_b():
    at = run(TILE, {"n": "40"})
    at = set_widget(at, "number_input", "tile_block", 8)
    spec = chart_specs(at)["tile_memory"]
    by_meta = {trace["meta"]: trace for trace in spec["data"]}
    ns = np.asarray(decode(by_meta["full"]["x"]), dtype=int)
    assert 40 in ns and ns[-1] == 8192
    full = [attention_memory(int(n), 8).full for n in ns]
    tiled = [attention_memory(int(n), 8).tiled for n in ns]
    np.testing.assert_array_equal(decode(by_meta["full"]["y"]), full)
    np.testing.assert_array_equal(decode(by_meta["tiled"]["y"]), tiled)
    np.testing.assert_array_equal(decode(by_meta["current"]["x"]), [40, 40])
    here = attention_memory(40, 8)
    assert f"**{here.full / 1024:.3g} KiB**" in texts(at) and f"{here.ratio:g} times less" in texts(
        at
    )


def test_markup_tokens_are_escaped_on_the_tiled_page():
    at = run(TILE, text="<b>x</b> %{z} **y**")
    ticks = chart_specs(at)["tile_logits"]["layout"]["yaxis"]["ticktext"]
    assert ticks == ["&lt;b&gt;x&lt;/b&gt;", "%{z}", "**y**"]
    assert at.selectbox(key="tile_row").options[0] == "<b>x</b> (row 0)"


def test_the_page_is_going_further_and_says_what_flashattention_saves():
    at = run(TILE)
    assert at.title[0].value.startswith("Going further")
    text = texts(at)
    assert "the work stays O(n² d)" in text and "HBM" in text and "SRAM" in text
    assert "cut the **queries** into blocks" in text
    assert "Milakov and Gimelshein" in text and "Dao et al., 2022" in text
    layout = chart_specs(at)["tile_memory"]["layout"]
    assert layout["yaxis"]["title"]["text"].startswith("memory of the scores")
