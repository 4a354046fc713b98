"""Positions through Streamlit's AppTest: the shuffled sentence's outputs, without and with
positions, are the permutation experiment's, whatever the sidebar's mask."""

from dataclasses import replace

import numpy as np

import attnviz
from attnviz import lessons
from attnviz.inputs import sinusoidal_positions
from attnviz.lessons.positions import ROPE_BASE
from attnviz.ui.text import md_escape
from tests.helpers import chart_specs, count_calls, heatmap_z, notices, run, run_more

POSITIONS = "app_pages/Positions.py"
S0 = attnviz.Settings()


def positions_off_and_on(s):
    """The examples the positions page compares: ``s`` without and with positions, no mask."""
    return tuple(attnviz.compute(replace(s, positions=p, mask="none")) for p in (False, True))


def test_positions_shows_equivariance_without_positions_and_its_break_with_them():
    at = run(POSITIONS)
    specs = chart_specs(at)
    exp = lessons.permutation_experiment(*positions_off_and_on(S0), seed=0)
    perm = exp.permutation
    np.testing.assert_allclose(
        heatmap_z(specs["off_reordered"]), exp.original_off.output[perm], atol=1e-12
    )
    np.testing.assert_allclose(heatmap_z(specs["off_shuffled"]), exp.permuted_off.output)
    np.testing.assert_allclose(heatmap_z(specs["off_reordered"]), heatmap_z(specs["off_shuffled"]))
    np.testing.assert_allclose(heatmap_z(specs["on_shuffled"]), exp.permuted_on.output)
    assert np.abs(heatmap_z(specs["on_reordered"]) - heatmap_z(specs["on_shuffled"])).max() > 0.1
    said = notices(at)
    assert f"without positions: **{exp.max_abs_diff_off:.2e}**" in said
    assert f"with positions: **{exp.max_abs_diff_on:.3g}**" in said
    assert "word order matters" in said
    # the repeated "the": identical rows without positions, different with them
    assert f"differ by at most **{exp.pair_diff_off[0]:.2e}**" in said
    assert f"With positions the rows differ by **{exp.pair_diff_on[0]:.3g}**" in said
    np.testing.assert_allclose(heatmap_z(specs["P"]), sinusoidal_positions(6, 8))
    # rotary positions on the sentence's own q and k: one score per offset, from the lesson
    r = exp.original_off
    rot = lessons.rotary_scores(r.Q[0], r.K[1])
    (table,) = [df.value for df in at.dataframe if "offset m − n" in df.value.columns]
    np.testing.assert_allclose(table["R(m)q · R(n)k"], rot.scores)
    score = rot.scores[rot.offsets == 1][0]
    assert md_escape(f"offset 1: (1, 0), (4, 3), (9, 8) all give {score:.4g}") in said
    # the prose's base is the lesson's, and its offset has the table's sign (review 4, I8, I9)
    text = " ".join(m.value for m in at.markdown)
    assert f"θ_i = {ROPE_BASE:.0f}^(−2i/d_k)" in text
    assert "offset m − n between the two positions (the query's position minus the key's" in text


def test_shuffle_again_draws_a_new_permutation():
    at = run(POSITIONS)
    first = at.dataframe[0].value.iloc[1].tolist()
    at.button(key="attnviz_lesson_shuffle_again").click()
    at.run()
    assert at.number_input(key="attnviz_lesson_shuffle").value == 1
    exp = lessons.permutation_experiment(*positions_off_and_on(S0), seed=1)
    labels = attnviz.token_labels(S0.tokens)
    shuffled = at.dataframe[0].value.iloc[1].tolist()
    assert shuffled == [labels[k] for k in exp.permutation] != first
    np.testing.assert_allclose(heatmap_z(chart_specs(at)["on_shuffled"]), exp.permuted_on.output)


def test_positions_follow_the_sidebar_and_say_when_nothing_repeats():
    at = run(POSITIONS, text="alpha beta gamma", d_model=5, seed=2)
    s = replace(S0, text="alpha beta gamma", d_model=5, seed=2)
    exp = lessons.permutation_experiment(*positions_off_and_on(s), seed=0)
    np.testing.assert_allclose(heatmap_z(chart_specs(at)["P"]), sinusoidal_positions(3, 5))
    np.testing.assert_allclose(heatmap_z(chart_specs(at)["on_shuffled"]), exp.permuted_on.output)
    assert "no repeated token" in notices(at)
    at = run_more(at, text="solo")
    assert "nothing to shuffle" in notices(at)


def test_positions_drop_the_sidebar_mask():
    # A causal mask is itself information about order: the page compares the sentence without
    # a mask whatever the sidebar says, so the outputs without positions only move.
    at = run(POSITIONS, mask="causal")
    specs = chart_specs(at)
    exp = lessons.permutation_experiment(*positions_off_and_on(S0), seed=0)
    np.testing.assert_allclose(heatmap_z(specs["off_shuffled"]), exp.permuted_off.output)
    np.testing.assert_allclose(heatmap_z(specs["off_reordered"]), heatmap_z(specs["off_shuffled"]))
    assert "rounding only: the two are equal" in notices(at)


def test_a_rerun_recomputes_nothing(monkeypatch):
    # The experiment is cached per (settings, shuffle seed), its two examples in the frame's
    # cache: a rerun with the same choices shuffles and recomputes nothing.
    from attnviz.ui.pages import positions as module

    calls = count_calls(monkeypatch, module.lessons, ["permutation_experiment"])
    at = run(POSITIONS, seed=4245)  # settings no other test uses: the experiment runs
    assert calls
    calls.clear()
    at.run()
    assert calls == []
