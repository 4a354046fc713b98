"""The lessons' line charts: each trace holds the experiment's numbers, on a log x axis."""

import json

import numpy as np
import pytest

from attnviz import Settings, compute, lessons
from attnviz.charts.line_charts import (
    BAND_SE,
    JACOBIAN_NAME,
    MAX_ROW_LINES,
    gradient_chart,
    saturation_chart,
    temperature_chart,
    variance_chart,
)
from tests.helpers import decode


def spec(fig):
    return json.loads(fig.to_json())


def traces(fig):
    """{trace name: (x, y)} of a figure, as float arrays."""
    out = {}
    for trace in spec(fig)["data"]:
        out[trace["name"]] = (decode(trace["x"]).astype(float), decode(trace["y"]).astype(float))
    return out


def marks(fig):
    """[(x of the dotted line, its label)] of a figure's marks."""
    layout = spec(fig)["layout"]
    lines = [s["x0"] for s in layout.get("shapes", [])]
    labels = [(a["x"], a["text"]) for a in layout.get("annotations", [])]
    return lines, labels


@pytest.fixture(scope="module")
def variance():
    return lessons.dot_product_variance((1, 4, 64, 512), n_samples=500, seed=3)


def test_variance_chart_holds_measured_and_theory(variance):
    fig = variance_chart(variance)
    t = traces(fig)
    d = np.array([1, 4, 64, 512.0])
    np.testing.assert_array_equal(t["theory: Var = d_k"][0], d)
    np.testing.assert_array_equal(t["theory: Var = d_k"][1], d)
    np.testing.assert_allclose(t["measured Var(q·k)"][1], variance.variance)
    np.testing.assert_allclose(t["measured Var(q·k / √d_k)"][1], variance.scaled_variance)
    np.testing.assert_array_equal(t["theory: Var = 1"][1], np.ones(4))
    layout = spec(fig)["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    assert layout["xaxis"]["tickvals"] == [1, 4, 64, 512]


def test_variance_band_is_theory_plus_minus_standard_errors(variance):
    t = traces(variance_chart(variance))
    band = f"theory ± {BAND_SE} standard errors"
    upper = t[band][1]
    lower = t[f"{band} (lower edge)"][1]
    se = variance.variance_se
    np.testing.assert_allclose(upper, variance.d_k + BAND_SE * se)
    np.testing.assert_allclose(lower, np.maximum(variance.d_k - BAND_SE * se, 1e-6 * variance.d_k))
    assert np.all(lower > 0)  # a log axis shows nothing at or below 0
    scaled_upper = t[f"{band} (scaled)"][1]
    np.testing.assert_allclose(scaled_upper, 1 + BAND_SE * se / variance.d_k)
    # the measurements lie in the band here (500 samples, seed 3)
    assert np.all((variance.variance >= lower) & (variance.variance <= upper))


def test_band_stays_positive_with_few_samples():
    v = lessons.dot_product_variance((1, 2), n_samples=2, seed=0)
    t = traces(variance_chart(v))
    assert np.all(t[f"theory ± {BAND_SE} standard errors (lower edge)"][1] > 0)


def test_mark_sits_at_the_value_and_does_not_stretch_the_log_axis(variance):
    lines, labels = marks(variance_chart(variance, mark_d_k=64))
    assert lines == [64]
    # on a log axis an annotation's x is the exponent: log10(64), not 64 (which means 10^64)
    assert labels == [(pytest.approx(np.log10(64)), "your d_k = 64")]
    assert marks(variance_chart(variance)) == ([], [])


@pytest.fixture(scope="module")
def curve():
    return lessons.saturation_curve(compute(Settings()).result, 0, (1, 16, 256), n_trials=2)


@pytest.mark.parametrize("stat", ["max_weight", "normalised_entropy", "entropy"])
def test_saturation_chart_has_four_lines(curve, stat):
    t = traces(saturation_chart(curve, stat))
    expected = {
        "sentence, scaled": curve.sentence_scaled,
        "sentence, unscaled": curve.sentence_unscaled,
        "random q, k, scaled": curve.random_scaled,
        "random q, k, unscaled": curve.random_unscaled,
    }
    assert set(t) == set(expected)
    for name, stats in expected.items():
        np.testing.assert_array_equal(t[name][0], [1, 16, 256])
        np.testing.assert_allclose(t[name][1], getattr(stats, stat), err_msg=name)


def test_saturation_chart_marks_the_d_k_and_rejects_unknown_stats(curve):
    lines, labels = marks(saturation_chart(curve, mark_d_k=16))
    assert lines == [16] and labels[0][1] == "d_k = 16"
    with pytest.raises(ValueError, match="stat must be one of"):
        saturation_chart(curve, "variance")


def test_gradient_chart_holds_norm_and_weight_with_marks():
    g = lessons.softmax_gradient_norm(factors=(0.1, 1, 10, 100))
    fig = gradient_chart(g, [(1.0, "scaled"), (8.0, "unscaled")])
    t = traces(fig)
    np.testing.assert_allclose(t[JACOBIAN_NAME][1], g.jacobian_norm)
    np.testing.assert_allclose(t["largest weight"][1], g.max_weight)
    lines, labels = marks(fig)
    assert lines == [1.0, 8.0]
    assert [text for _, text in labels] == ["scaled", "unscaled"]


def test_temperature_chart_draws_one_line_per_row_with_escaped_names():
    s = Settings(text="<b>x</b> y %{z}")
    sweep = lessons.temperature_sweep(compute(s).result, (0.01, 1, 100))
    labels = ["<b>x</b>", "y", "%{z}"]
    fig = temperature_chart(sweep, labels, current=1)
    t = traces(fig)
    assert "&lt;b&gt;x&lt;/b&gt;" in t and "<b>x</b>" not in t
    np.testing.assert_allclose(t["y"][1], sweep.entropy[:, 1])
    uniform = t["uniform over all 3 keys: log 3"][1]
    np.testing.assert_allclose(uniform, np.log(3))
    for trace in spec(fig)["data"]:
        assert "x</b>" not in trace.get("hovertemplate", "")
        assert "%{z}" not in trace.get("hovertemplate", "")
    assert marks(fig)[0] == [1]


def test_temperature_chart_summarises_many_rows():
    s = Settings(generated=True, n=MAX_ROW_LINES + 1)
    sweep = lessons.temperature_sweep(compute(s).result, (0.1, 1, 10))
    t = traces(temperature_chart(sweep, s.tokens))
    assert {"smallest row", "mean over rows", "largest row"} <= set(t)
    np.testing.assert_allclose(t["mean over rows"][1], sweep.entropy.mean(axis=1))
    np.testing.assert_allclose(t["smallest row"][1], sweep.entropy.min(axis=1))
    with pytest.raises(ValueError, match="labels must match"):
        temperature_chart(sweep, ["a"])


def test_vector_bars_hold_the_values_and_escape_labels():
    from attnviz.charts.line_charts import vector_bars

    fig = vector_bars([1.0, -2.0], ["<i>a</i>", "b"])
    assert list(fig.data[0].y) == [1.0, -2.0]
    assert fig.layout.xaxis.ticktext[0] == "&lt;i&gt;a&lt;/i&gt;"
