"""Why scale through Streamlit's AppTest: the variance, saturation, heatmap and gradient
numbers are the experiments', for default and changed sidebar settings, a URL and the page's
own sliders."""

from dataclasses import replace

import numpy as np

import attnviz
from attnviz import lessons
from tests.helpers import (
    chart_specs,
    count_calls,
    heatmap_z,
    notices,
    result_of,
    run,
    text_of,
    trace_xy,
)

WHY = "app_pages/Why_scale.py"
S0 = attnviz.Settings()


def test_why_scale_variance_chart_is_the_measured_experiment():
    at = run(WHY)
    spec = chart_specs(at)["variance"]
    expected = lessons.dot_product_variance(lessons.DEFAULT_D_KS, n_samples=2000, seed=0)
    x, y = trace_xy(spec, "measured Var(q·k)")
    np.testing.assert_array_equal(x, lessons.DEFAULT_D_KS)
    np.testing.assert_allclose(y, expected.variance, rtol=1e-12)
    _, scaled = trace_xy(spec, "measured Var(q·k / √d_k)")
    np.testing.assert_allclose(scaled, expected.scaled_variance)
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
    x, y = trace_xy(chart_specs(at)["variance"], "measured Var(q·k)")
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
            ("sentence, unscaled", curve.sentence_unscaled),
            ("random q, k, scaled", curve.random_scaled),
        ):
            np.testing.assert_allclose(trace_xy(specs[key], name)[1], getattr(stats, stat))
    said = notices(at)
    assert f"{curve.sentence_unscaled.max_weight[-1]:.2f} at d_k = 512 **without" in said
    assert "with the causal mask" in said
    wobble = curve.sentence_scaled.max_weight  # the solid green line: one draw of W per d_k
    assert f"moves between {wobble.min():.2f} and {wobble.max():.2f}: at each d_k" in said
    assert "new random weights W_Q, W_K" in said
    intro = text_of(at)  # the seed's "unstable", corrected
    assert "*Unstable* is not the right word" in intro and "never overflows" in intro


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


def test_a_rerun_recomputes_nothing(monkeypatch):
    # Every experiment is cached per settings (and the page's d_k): moving nothing and rerunning
    # calls no lesson again. The gradient at n = 512 takes about a second.
    from attnviz.serve import why_scale as module

    names = ("dot_product_variance", "saturation_curve", "scaling_pair")
    calls = count_calls(monkeypatch, module.lessons, names)
    count_calls(monkeypatch, module, ["softmax_gradient_norm"], calls)
    at = run(WHY, seed=4244)  # settings no other test uses: every experiment runs
    assert {"dot_product_variance", "saturation_curve", "scaling_pair"} <= set(calls)
    assert "softmax_gradient_norm" in calls
    calls.clear()
    at.run()
    assert calls == []


def test_the_initialisation_is_named_lecuns_fan_in():
    text = text_of(run(WHY))
    assert "LeCun's fan-in initialisation" in text and "Xavier/LeCun" not in text
