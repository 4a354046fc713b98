"""Masks and temperature through Streamlit's AppTest: the page's own mask (preset or cell by
cell) and temperature, against the lessons' numbers, and its caches."""

from dataclasses import replace

import numpy as np
import pytest

import attnviz
from attnviz import lessons
from tests.helpers import (
    chart_specs,
    count_calls,
    heatmap_z,
    notices,
    result_of,
    run,
    run_more,
    text_of,
    trace_xy,
)

MASKS = "app_pages/Masks_and_temperature.py"
S0 = attnviz.Settings()


def mask_mode(at, mode):
    at.radio(key="attnviz_lesson_mask").set_value(mode)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_masks_page_starts_at_the_sidebar_mask_and_follows_it():
    at = run(MASKS)
    assert at.radio(key="attnviz_lesson_mask").value == "none"
    np.testing.assert_allclose(
        heatmap_z(chart_specs(at)["masked_A"]), attnviz.compute(S0).result.attention
    )
    at = run_more(at, mask="causal")
    assert at.radio(key="attnviz_lesson_mask").value == "causal"
    at = mask_mode(at, "padding")  # the page's own choice stays while the sidebar is unchanged
    at = run_more(at, d_k=5)
    assert at.radio(key="attnviz_lesson_mask").value == "padding"


def test_causal_mode_shows_minus_infinity_then_renormalised_rows():
    at = run(MASKS, mask="causal")
    specs = chart_specs(at)
    r = attnviz.compute(replace(S0, mask="causal")).result
    logits = heatmap_z(specs["masked_logits"])
    upper = np.triu(np.ones((6, 6), bool), 1)
    assert np.isnan(logits[upper]).all()  # -inf is drawn as an empty cell marked −∞
    assert specs["masked_logits"]["data"][0]["text"][0][1] == "−∞"
    np.testing.assert_allclose(logits[~upper], r.logits[~upper])
    A = heatmap_z(specs["masked_A"])
    assert np.isnan(A[upper]).all()  # masked: drawn grey with no number, not as 0.00
    np.testing.assert_allclose(A[~upper], r.attention[~upper], atol=1e-12)
    assert r.attention[upper].max() == 0  # the weight itself is exactly 0
    plain = attnviz.compute(S0).result.attention
    share = plain[1, :2].sum()  # row "cat" keeps keys 0 and 1
    said = notices(at)
    assert "Row **cat** may see 2 of 6 keys" in said
    assert f"**{share:.3f}** of its weight" in said
    assert f"{plain[1, 0] / share:.3f}, {plain[1, 1] / share:.3f}" in said
    assert "BERT" in said and "the \\(1\\)" in said


def test_padding_mode_blocks_the_last_k_keys():
    at = mask_mode(run(MASKS), "padding")
    at.number_input(key="attnviz_lesson_padding").set_value(2)
    at.run()
    A = heatmap_z(chart_specs(at)["masked_A"])
    assert np.isnan(A[:, -2:]).all()  # the padding keys: drawn as masked
    np.testing.assert_allclose(A[:, :-2].sum(axis=1), 1)
    expected = lessons.reattend(
        attnviz.compute(S0).result, mask=lessons.build_mask("padding", 6, n_padding=2)
    )
    assert np.all(expected.attention[:, -2:] == 0)
    np.testing.assert_allclose(A[:, :-2], expected.attention[:, :-2], atol=1e-12)


def test_padding_every_token_gives_zero_rows_and_zero_outputs():
    at = mask_mode(run(MASKS), "padding")
    at.number_input(key="attnviz_lesson_padding").set_value(6)
    at.run()
    specs = chart_specs(at)
    assert np.isnan(heatmap_z(specs["masked_A"])).all()  # every key masked: all grey
    assert np.all(heatmap_z(specs["masked_output"]) == 0)  # and every output row is 0
    said = notices(at)
    assert "may attend to no key" in said and "0 / 0 = NaN" in said and "row sum 0" in said
    assert "Every row is masked from every key" in said


def test_padding_count_is_clamped_when_the_sentence_shrinks():
    at = mask_mode(run(MASKS), "padding")
    at.number_input(key="attnviz_lesson_padding").set_value(5)
    at.run()
    at = run_more(at, text="two words")
    assert at.number_input(key="attnviz_lesson_padding").value == 2


def test_the_padding_count_is_set_one_way_so_streamlit_does_not_warn(monkeypatch):
    # Streamlit logs a warning (once per server) for a widget given both a default and a
    # value through the session state: the page sets the count through the state alone.
    from streamlit.elements.lib import policies

    warned = []
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    monkeypatch.setattr(policies._LOGGER, "warning", lambda *args, **kw: warned.append(args))
    at = mask_mode(run(MASKS), "padding")
    assert at.number_input(key="attnviz_lesson_padding").value == 1  # the first default
    at.number_input(key="attnviz_lesson_padding").set_value(5)
    at.run()
    at = run_more(at, text="two words")
    assert at.number_input(key="attnviz_lesson_padding").value == 2
    assert warned == []


def test_custom_mask_toggles_cells_and_a_blocked_row_is_zero():
    at = mask_mode(run(MASKS), "custom")
    at.selectbox(key="attnviz_lesson_cell_i").set_value(0)
    at.selectbox(key="attnviz_lesson_cell_j").set_value(1)
    at.button(key="attnviz_lesson_toggle").click()
    at.run()
    specs = chart_specs(at)
    mask = heatmap_z(specs["mask_cells"])
    assert mask[0, 1] == 0 and mask.sum() == 35
    assert np.isnan(heatmap_z(specs["masked_A"])[0, 1])  # drawn as masked
    assert np.isnan(heatmap_z(specs["masked_logits"])[0, 1])
    assert "Row **the \\(1\\)** may see 5 of 6 keys" in notices(at)
    # block the rest of row 2 ("sat"): its attention and output rows are zero
    for j in range(6):
        at.selectbox(key="attnviz_lesson_cell_i").set_value(2)
        at.selectbox(key="attnviz_lesson_cell_j").set_value(j)
        at.button(key="attnviz_lesson_toggle").click()
        at.run()
    specs = chart_specs(at)
    assert np.isnan(heatmap_z(specs["masked_A"])[2]).all()  # a row that sees no key: all grey
    assert np.all(heatmap_z(specs["masked_output"])[2] == 0)
    assert "Row **sat** may attend to no key" in notices(at)
    # toggling a cell twice puts it back; "Allow all" clears the custom mask
    at.selectbox(key="attnviz_lesson_cell_i").set_value(0)
    at.selectbox(key="attnviz_lesson_cell_j").set_value(1)
    at.button(key="attnviz_lesson_toggle").click()
    at.run()
    assert heatmap_z(chart_specs(at)["mask_cells"])[0, 1] == 1
    at.button(key="attnviz_lesson_clear").click()
    at.run()
    assert heatmap_z(chart_specs(at)["mask_cells"]).sum() == 36


def test_custom_cells_are_forgotten_when_the_tokens_change():
    at = mask_mode(run(MASKS), "custom")
    at.button(key="attnviz_lesson_toggle").click()  # cell (0, 0)
    at.run()
    assert heatmap_z(chart_specs(at)["mask_cells"])[0, 0] == 0
    at = run_more(at, text="a b c")
    assert np.all(heatmap_z(chart_specs(at)["mask_cells"]) == 1)


def test_temperature_follows_the_sidebar_and_draws_the_limits():
    at = run(MASKS, temperature=0.5)
    assert at.select_slider(key="attnviz_lesson_T").value == 0.5
    specs = chart_specs(at)
    r = attnviz.compute(replace(S0, temperature=0.5)).result
    np.testing.assert_allclose(heatmap_z(specs["A_at_T"]), r.attention, atol=1e-12)
    sweep = lessons.temperature_sweep(
        result_of(replace(S0, temperature=0.5)), mask=np.ones((6, 6), bool)
    )
    np.testing.assert_allclose(heatmap_z(specs["limit_argmax"]), sweep.argmax_limit)
    np.testing.assert_allclose(heatmap_z(specs["limit_uniform"]), np.full((6, 6), 1 / 6))
    _, y = trace_xy(specs["temperature_entropy"], "cat")
    np.testing.assert_allclose(y, sweep.entropy[:, 1])
    assert specs["temperature_entropy"]["layout"]["shapes"][0]["x0"] == 0.5
    # three charts side by side: their 6 column labels are turned so they do not run together
    for key in ("limit_argmax", "A_at_T", "limit_uniform"):
        assert specs[key]["layout"]["xaxis"]["tickangle"] == -45
    assert specs["masked_A"]["layout"]["xaxis"]["tickangle"] == 0  # half the page: level
    # the limit's title and the prose allow for ties: the repeated "the" splits its rows
    # (review 4, I7), as the page's own note says
    assert sweep.argmax_limit.max(axis=1).min() == 0.5
    assert specs["limit_argmax"]["layout"]["title"]["text"].replace("<br>", " ") == (
        "T → 0: argmax (one-hot unless keys tie)"
    )
    assert "or splits its weight evenly among keys that tie for it" in text_of(at)


def test_the_mask_is_drawn_on_two_colours_and_a_is_normalised_over_the_keys_it_may_see():
    """Review 4, §8: a 0/1 mask on a 0/1 scale, not a continuous bar printed "1.00"; I6: with
    no mask nothing is re-normalised, so A's title says over which keys a row is normalised."""
    specs = chart_specs(run(MASKS))
    mask = specs["mask_cells"]["data"][0]
    scale = mask["colorscale"]
    assert len({colour for _, colour in scale}) == 2 and mask["colorbar"]["ticktext"] == ["0", "1"]
    assert {t for row in mask["text"] for t in row} == {"1"}  # no mask: every key allowed
    title = specs["masked_A"]["layout"]["title"]["text"].replace("<br>", " ")
    assert title == "A after the softmax: each row normalised over the keys it may see"


@pytest.mark.parametrize(("T", "end"), [(0.01, "argmax"), (100.0, "uniform")])
def test_temperature_extremes_approach_their_limits(T, end):
    at = run(MASKS, text="red green blue yellow")
    at.select_slider(key="attnviz_lesson_T").set_value(T)
    at.run()
    specs = chart_specs(at)
    A = heatmap_z(specs["A_at_T"])
    limit = heatmap_z(specs[f"limit_{end}"])
    r = attnviz.compute(replace(S0, text="red green blue yellow")).result
    np.testing.assert_allclose(A, lessons.reattend(r, temperature=T).attention, atol=1e-12)
    # most rows are at the limit; a row whose two top logits differ by ~0.01 is not yet
    assert np.median(np.abs(A - limit).max(axis=1)) < 0.01
    assert f"nearer the **{end}" in notices(at)


def test_temperature_uses_the_page_mask():
    at = mask_mode(run(MASKS), "causal")
    specs = chart_specs(at)
    assert np.all(np.triu(heatmap_z(specs["limit_uniform"]), 1) == 0)
    np.testing.assert_allclose(heatmap_z(specs["limit_uniform"])[2, :3], 1 / 3)


def test_a_rerun_of_the_masks_page_recomputes_nothing(monkeypatch):
    # The masked attention, the sweep and A at T are cached per (settings, mask[, T]), keyed on
    # the Settings and the packed mask: a rerun with the same choices calls no lesson again.
    from attnviz.serve import masks_and_temperature as module

    names = ("reattend", "mask_effect", "temperature_sweep", "temperature_effect")
    calls = count_calls(monkeypatch, module, names)
    at = mask_mode(run(MASKS, seed=4242), "custom")  # settings no other test uses
    at.button(key="attnviz_lesson_toggle").click()  # a custom mask: cell (0, 0) blocked
    at.run()
    assert {"reattend", "mask_effect", "temperature_sweep", "temperature_effect"} <= set(calls)
    calls.clear()
    at.run()
    assert calls == []
    assert heatmap_z(chart_specs(at)["mask_cells"])[0, 0] == 0


def test_the_temperature_is_flagged_as_a_teaching_knob_and_ties_level_at_log_k():
    text = text_of(run(MASKS))
    assert "The temperature is a teaching knob: standard attention has none" in text
    assert "each curve above falls to log k" in text
    assert "every curve above falls towards 0" not in text
