"""The lesson pages through Streamlit's AppTest: their numbers are the experiments', for the
default settings, changed sidebar settings, a URL, and each page's own controls."""

from dataclasses import replace

import numpy as np
import pytest

import attnviz
from attnviz import lessons
from attnviz.inputs import sinusoidal_positions
from attnviz.ui.text import md_escape
from tests.helpers import chart_specs, decode, heatmap_z, run, run_more

WHY, MASKS, POSITIONS, QUIZ = (
    "pages/2_Why_scale.py",
    "pages/3_Masks_and_temperature.py",
    "pages/4_Positions.py",
    "pages/5_Predict_then_reveal.py",
)
LESSONS = [WHY, MASKS, POSITIONS, QUIZ]
S0 = attnviz.Settings()


def result_of(s):
    return attnviz.compute(s).result


def positions_off_and_on(s):
    """The examples the positions page compares: ``s`` without and with positions, no mask."""
    return tuple(attnviz.compute(replace(s, positions=p, mask="none")) for p in (False, True))


def quiz_of(s, seed):
    example = attnviz.compute(s)
    return lessons.quiz(example.result, example.labels, seed)


def notices(at):
    """The "what to notice" paragraphs (st.info) of a run, joined."""
    return "\n".join(el.value for el in at.info)


def text_of(at):
    """Everything a run wrote as markdown, info, success, warning or caption, joined."""
    parts = []
    for kind in ("markdown", "info", "success", "warning", "caption", "subheader", "header"):
        parts += [el.value for el in at.get(kind)]
    return "\n".join(parts)


def line(spec, name):
    """(x, y) of the trace called ``name`` in a figure spec."""
    for trace in spec["data"]:
        if trace.get("name") == name:
            return decode(trace["x"]).astype(float), decode(trace["y"]).astype(float)
    raise AssertionError(f"no trace {name!r}")


@pytest.mark.parametrize("script", LESSONS)
@pytest.mark.parametrize(
    "widgets",
    [
        {},
        {"text": "a b a c", "d_model": 6, "d_k": 3, "d_v": 2, "seed": 9},
        {"mask": "causal", "scale": False, "positions": True, "temperature": 0.4},
        {"generated": True},
    ],
    ids=["default", "new-sentence", "causal-unscaled", "generated"],
)
def test_every_lesson_runs_and_says_what_to_notice(script, widgets):
    at = run(script, **widgets)
    assert not at.error and not at.exception
    if script != QUIZ:
        assert at.info, "a lesson says in words what to notice"
    else:
        assert [r for r in at.radio if str(r.key).startswith("attnviz_quiz_")]


# --- Why scale -----------------------------------------------------------------------------------


def test_why_scale_variance_chart_is_the_measured_experiment():
    at = run(WHY)
    spec = chart_specs(at)["variance"]
    expected = lessons.dot_product_variance(lessons.DEFAULT_D_KS, n_samples=2000, seed=0)
    x, y = line(spec, "measured Var(q·k)")
    np.testing.assert_array_equal(x, lessons.DEFAULT_D_KS)
    np.testing.assert_allclose(y, expected.variance, rtol=1e-12)
    np.testing.assert_allclose(line(spec, "measured Var(q·k / √d_k)")[1], expected.scaled_variance)
    assert spec["layout"]["xaxis"]["type"] == "log"
    top = expected.variance[-1]
    assert f"variance **{top:.4g}** (theory 512" in notices(at)
    assert f"the variance is **{expected.scaled_variance[-1]:.3g}**" in notices(at)


def test_why_scale_variance_follows_seed_d_k_and_sample_count():
    at = run(WHY, seed=5, d_k=7)
    at.select_slider(key="attnviz_lesson_samples").set_value(500)
    at.run()
    d_ks = tuple(sorted({*lessons.DEFAULT_D_KS, 7}))
    expected = lessons.dot_product_variance(d_ks, n_samples=500, seed=5)
    x, y = line(chart_specs(at)["variance"], "measured Var(q·k)")
    np.testing.assert_array_equal(x, d_ks)
    np.testing.assert_allclose(y, expected.variance, rtol=1e-12)
    assert f"At your d_k = 7: {expected.variance[d_ks.index(7)]:.4g} unscaled" in notices(at)


def test_why_scale_saturation_charts_are_the_curve_for_the_sidebar_settings():
    at = run(WHY, text="one two three four five", mask="causal")
    s = replace(S0, text="one two three four five", mask="causal")
    curve = lessons.saturation_curve(result_of(s), s.seed)
    specs = chart_specs(at)
    for key, stat in (
        ("saturation_max", "max_weight"),
        ("saturation_entropy", "normalised_entropy"),
    ):
        for name, stats in (
            ("your sentence, unscaled", curve.sentence_unscaled),
            ("random q, k, scaled", curve.random_scaled),
        ):
            np.testing.assert_allclose(line(specs[key], name)[1], getattr(stats, stat))
    said = notices(at)
    assert f"{curve.sentence_unscaled.max_weight[-1]:.2f} at d_k = 512 **without" in said
    assert "with the causal mask" in said


def test_why_scale_heatmaps_at_the_page_d_k_with_a_reading_from_the_numbers():
    at = run(WHY)
    at.select_slider(key="attnviz_lesson_d_k").set_value(256)
    at.run()
    specs = chart_specs(at)
    scaled, unscaled = lessons.scaling_pair(result_of(S0), S0.seed, 256)
    np.testing.assert_allclose(heatmap_z(specs["A_scaled"]), scaled.attention, atol=1e-12)
    np.testing.assert_allclose(heatmap_z(specs["A_unscaled"]), unscaled.attention, atol=1e-12)
    mean_off = unscaled.attention.max(axis=1).mean()
    mean_on = scaled.attention.max(axis=1).mean()
    said = notices(at)
    assert f"Without scaling, the largest weight per row averages **{mean_off:.2f}**" in said
    assert f"With scaling it averages **{mean_on:.2f}**" in said
    assert "d_k = 256" in text_of(at)
    # the gradient: ||J|| at c = 1 and at c = sqrt(256) = 16, from the same scaled logits
    g = lessons.softmax_gradient_norm(scaled.logits, (1.0, 16.0)).jacobian_norm
    assert f"**{g[0]:.3g}**" in said and f"**{g[1]:.3g}**" in said
    assert g[1] < g[0]


def test_why_scale_at_d_k_one_says_nothing_changes():
    at = run(WHY)
    at.select_slider(key="attnviz_lesson_d_k").set_value(1)
    at.run()
    specs = chart_specs(at)
    np.testing.assert_array_equal(heatmap_z(specs["A_scaled"]), heatmap_z(specs["A_unscaled"]))
    assert "dividing by it changes nothing" in notices(at)


def test_why_scale_with_one_token():
    at = run(WHY, text="alone")
    assert "nothing can saturate" in notices(at)


def test_why_scale_reads_a_shared_link():
    at = run(WHY, {"tokens": "x y z", "seed": "3", "temperature": "2"})
    s = attnviz.from_query({"tokens": "x y z", "seed": "3", "temperature": "2"})[0]
    scaled, _ = lessons.scaling_pair(result_of(s), s.seed, 64)
    np.testing.assert_allclose(heatmap_z(chart_specs(at)["A_scaled"]), scaled.attention)
    assert "T = 2" in notices(at)


# --- Masks and temperature ------------------------------------------------------------------------


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
    np.testing.assert_allclose(heatmap_z(specs["masked_A"]), r.attention, atol=1e-12)
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
    assert np.all(A[:, -2:] == 0)
    np.testing.assert_allclose(A.sum(axis=1), 1)
    expected = lessons.reattend(
        attnviz.compute(S0).result, mask=lessons.build_mask("padding", 6, n_padding=2)
    )
    np.testing.assert_allclose(A, expected.attention, atol=1e-12)


def test_padding_every_token_gives_zero_rows_and_zero_outputs():
    at = mask_mode(run(MASKS), "padding")
    at.number_input(key="attnviz_lesson_padding").set_value(6)
    at.run()
    specs = chart_specs(at)
    assert np.all(heatmap_z(specs["masked_A"]) == 0)
    assert np.all(heatmap_z(specs["masked_output"]) == 0)
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
    assert heatmap_z(specs["masked_A"])[0, 1] == 0
    assert np.isnan(heatmap_z(specs["masked_logits"])[0, 1])
    assert "Row **the \\(1\\)** may see 5 of 6 keys" in notices(at)
    # block the rest of row 2 ("sat"): its attention and output rows are zero
    for j in range(6):
        at.selectbox(key="attnviz_lesson_cell_i").set_value(2)
        at.selectbox(key="attnviz_lesson_cell_j").set_value(j)
        at.button(key="attnviz_lesson_toggle").click()
        at.run()
    specs = chart_specs(at)
    assert np.all(heatmap_z(specs["masked_A"])[2] == 0)
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
    _, y = line(specs["temperature_entropy"], "cat")
    np.testing.assert_allclose(y, sweep.entropy[:, 1])
    assert specs["temperature_entropy"]["layout"]["shapes"][0]["x0"] == 0.5
    # three charts side by side: their 6 column labels are turned so they do not run together
    for key in ("limit_argmax", "A_at_T", "limit_uniform"):
        assert specs[key]["layout"]["xaxis"]["tickangle"] == -45
    assert specs["masked_A"]["layout"]["xaxis"]["tickangle"] == 0  # half the page: level


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
    from attnviz.ui.pages import masks_and_temperature as module

    calls = []
    for name in ("reattend", "mask_effect", "temperature_sweep", "temperature_effect"):
        real = getattr(module, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    at = mask_mode(run(MASKS, seed=4242), "custom")  # settings no other test uses
    at.button(key="attnviz_lesson_toggle").click()  # a custom mask: cell (0, 0) blocked
    at.run()
    assert {"reattend", "mask_effect", "temperature_sweep", "temperature_effect"} <= set(calls)
    calls.clear()
    at.run()
    assert calls == []
    assert heatmap_z(chart_specs(at)["mask_cells"])[0, 0] == 0


# --- Positions -----------------------------------------------------------------------------------


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


# --- Predict, then reveal ------------------------------------------------------------------------


def quiz_widgets(at):
    found = []
    for kind in ("radio", "selectbox"):
        found += [w for w in at.get(kind) if str(w.key).startswith("attnviz_quiz_")]
    return sorted(found, key=lambda w: int(str(w.key).rsplit("_", 1)[1]))


def test_quiz_asks_the_core_questions_and_reveals_after_an_answer():
    at = run(QUIZ)
    questions = quiz_of(S0, 0)
    said = text_of(at)
    for q in questions:
        assert md_escape(q.text) in said
    widgets = quiz_widgets(at)
    assert len(widgets) == len(questions)
    assert all(w.value is None for w in widgets)
    assert q.explanation not in said and not at.success
    # answer the first right and the second wrong
    widgets[0].set_value(questions[0].answer)
    wrong = next(o for o in questions[1].options if o != questions[1].answer)
    widgets[1].set_value(wrong)
    at.run()
    assert f"Right: **{md_escape(questions[0].answer)}**" in at.success[0].value
    assert f"the answer is **{md_escape(questions[1].answer)}**" in at.warning[0].value
    said = text_of(at)
    assert md_escape(questions[0].explanation) in said
    assert md_escape(questions[1].explanation) in said
    assert md_escape(questions[2].explanation) not in said
    assert "Score: 1 of 2 answered" in said


def test_new_questions_changes_the_set_and_forgets_the_answers():
    at = run(QUIZ)
    quiz_widgets(at)[0].set_value(quiz_of(S0, 0)[0].answer)
    at.run()
    at.button(key="attnviz_lesson_new_quiz").click()
    at.run()
    questions = quiz_of(S0, 1)
    said = text_of(at)
    assert all(md_escape(q.text) in said for q in questions)
    assert all(w.value is None for w in quiz_widgets(at))
    assert "Question set 1" in said


def test_quiz_is_right_for_changed_settings_and_escapes_tokens():
    widgets = {"text": "*a* <b>b</b> [c](x) d", "mask": "causal", "scale": False}
    at = run(QUIZ, **widgets)
    questions = quiz_of(replace(S0, **widgets), 0)
    said = text_of(at)
    for q in questions:
        assert md_escape(q.text) in said
    for w, q in zip(quiz_widgets(at), questions, strict=True):
        w.set_value(q.answer)
    at.run()
    assert len(at.success) == len(questions) and not at.warning
    # token labels reach markdown only escaped: shown as typed, never as emphasis, HTML, links
    markdown = [el.value for el in at.markdown] + [el.value for el in at.success]
    assert not any("<b>" in m or "*a*" in m or "[c](x)" in m for m in markdown)
    assert any(r"\*a\*" in m for m in markdown)
    options = [o for w in quiz_widgets(at) for o in w.options]
    assert r"\<b\>b\<\/b\>" in options and "<b>b</b>" not in options  # the argmax options


def test_quiz_with_many_tokens_asks_argmax_in_a_selectbox():
    at = run(QUIZ, generated=True)
    at = run_more(at, n=20)
    questions = quiz_of(replace(S0, generated=True, n=20), 0)
    argmax = [q for q in questions if q.kind == "argmax"]
    assert argmax
    k = questions.index(argmax[0])
    widget = quiz_widgets(at)[k]
    assert widget.type == "selectbox" or type(widget).__name__ == "Selectbox"
    widget.set_value(argmax[0].answer)
    at.run()
    assert any("Right" in s.value for s in at.success)


def test_a_rerun_of_the_quiz_asks_the_cached_questions(monkeypatch):
    # The questions are cached per (settings, question set): answering reruns the page, and the
    # rerun builds no question again.
    from attnviz.ui.pages import predict_then_reveal as module

    calls = []
    real = module.lessons.quiz

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module.lessons, "quiz", counted)
    at = run(QUIZ, seed=4243)  # settings no other test uses: their questions are built
    assert calls
    questions = quiz_of(replace(S0, seed=4243), 0)
    calls.clear()
    quiz_widgets(at)[0].set_value(questions[0].answer)
    at.run()
    assert calls == []
    assert f"Right: **{md_escape(questions[0].answer)}**" in at.success[0].value
