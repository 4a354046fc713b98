"""The why-scale page's sliders and views: the variance of q·k, saturation, the two heatmaps and
the gradient, each told in words with its numbers. Every number is read from ``attnviz.lessons``.

Widget keys: ``attnviz_lesson_samples`` (pairs drawn per d_k) and ``attnviz_lesson_d_k`` (the
page's own d_k for the heatmaps and the gradient).
"""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.charts.line_charts import BAND_SE, gradient_chart, saturation_chart, variance_chart
from attnviz.checks import AttentionInputError
from attnviz.lessons import (
    DEFAULT_D_KS,
    NEARLY_ONE_HOT,
    scaling_contrast,
)
from attnviz.serve.finish import kept_chart
from attnviz.serve.why_scale import (
    cached_dot_product_variance,
    cached_saturation_curve,
    cached_softmax_gradient,
    scaling_pair,
    sentence_of,
)
from attnviz.ui.charts import display, draw, show_matrix, toolbar
from attnviz.ui.projector import data_table
from attnviz.ui.text import notice


def scaled_and_unscaled(settings, d_k):
    """(scaled, unscaled) AttentionResults of the settings' sentence at the page's ``d_k``.

    Cached per (settings, d_k). When they cannot be computed (the unscaled logits overflow), a
    warning says why and the page stops there.
    """
    try:
        return scaling_pair(settings, d_k)
    except AttentionInputError as exc:
        st.warning(f"{exc}", icon="⚠️")
        st.stop()


SAMPLE_SIZES = (200, 500, 2000, 5000, 20000)


def sample_slider():
    """How many random pairs (q, k) to draw for each d_k."""
    return st.select_slider(
        "Random pairs (q, k) drawn for each d_k",
        SAMPLE_SIZES,
        value=2000,
        key="attnviz_lesson_samples",
        help="More pairs, a tighter standard-error band. The draws depend on the sidebar's seed.",
    )


def d_k_slider():
    """The page's own d_k for the heatmaps and the gradient (the sidebar's stays as it is)."""
    return st.select_slider(
        "d_k for the heatmaps below (marked on the charts)",
        DEFAULT_D_KS,
        value=64,
        key="attnviz_lesson_d_k",
        help="This page's own choice: the sidebar's d_k stays as it is.",
    )


def _variance_figure(d_k, n_samples, seed):
    return variance_chart(cached_dot_product_variance(d_k, n_samples, seed), mark_d_k=d_k)


def variance_plot(d_k, n_samples, seed):
    """The measured variance of q·k against d_k (and scaled), the sidebar's ``d_k`` marked:
    cached_dot_product_variance's, drawn once for every session."""
    draw(
        kept_chart(_variance_figure, (d_k, n_samples, seed), *display()),
        "variance",
        config=toolbar("variance"),
    )


def variance_notice(var, d_k):
    """What to notice in the DotProductVariance ``var``: the largest d_k, and the sidebar's."""
    z = var.off_by_se
    top, mine = -1, list(var.d_k).index(d_k)
    outside = int(np.sum(np.abs(z) > BAND_SE))
    notice(
        f"At d_k = {var.d_k[top]} the {var.n_samples} products q·k have variance "
        f"**{var.variance[top]:.4g}** (theory {var.d_k[top]}, {abs(z[top]):.1f} standard errors "
        f"off), so a typical score is about ±{np.sqrt(var.variance[top]):.3g}; divided by "
        f"√{var.d_k[top]} the variance is **{var.scaled_variance[top]:.3g}**. At your "
        f"d_k = {d_k}: {var.variance[mine]:.4g} unscaled, {var.scaled_variance[mine]:.3g} "
        f"scaled. The measured points follow the line Var = d_k, and the scaled ones stay near 1; "
        + (
            f"all {len(var.d_k)} lie within {BAND_SE} standard errors of the theory."
            if outside == 0
            else f"{outside} of {len(var.d_k)} lie outside {BAND_SE} standard errors, as about 1 "
            "measurement in 20 does by chance: change the seed or draw more pairs."
        )
    )


def variance_table(var):
    """Every measurement of ``var`` in a table, folded away."""
    with st.expander("The numbers"):
        data_table(
            pd.DataFrame(
                {
                    "d_k": var.d_k,
                    "measured Var(q·k)": var.variance,
                    "theory": var.theory_variance,
                    "standard error": var.variance_se,
                    "off by (standard errors)": var.off_by_se,
                    "measured Var(q·k / √d_k)": var.scaled_variance,
                    "mean of q·k": var.mean,
                }
            ),
            hide_index=True,
        )


def _saturation_figure(settings, field, d_k):
    return saturation_chart(cached_saturation_curve(settings), field, mark_d_k=d_k)


def saturation_charts(settings, d_k):
    """Entropy (left) and largest weight (right) of the settings' SaturationCurve, ``d_k``
    marked, drawn once for every session."""
    left, right = st.columns(2)
    for col, field, key in (
        (left, "normalised_entropy", "saturation_entropy"),
        (right, "max_weight", "saturation_max"),
    ):
        with col:
            draw(
                kept_chart(
                    _saturation_figure, (sentence_of(settings), field, d_k), *display(), share=0.5
                ),
                key,
                config=toolbar(key),
            )


def _range(curve, stats):
    return (
        f"{stats.max_weight[0]:.2f} at d_k = {curve.d_k[0]} → {stats.max_weight[-1]:.2f} at "
        f"d_k = {curve.d_k[-1]}"
    )


def saturation_notice(curve, settings):
    """What to notice in the SaturationCurve of ``settings``: unscaled rows go one-hot."""
    n = curve.n_sentence
    if n == 1:
        notice(
            "With one token every row has a single key, which gets weight 1 whatever the scores: "
            "nothing can saturate. Type a longer sentence in the sidebar."
        )
        return
    extras = []
    if settings.mask != "none":
        extras.append(f"the {settings.mask} mask")
    if settings.temperature != 1:
        extras.append(f"T = {settings.temperature:g}")
    notice(
        f"For your sentence ({n} tokens{', with ' + ' and '.join(extras) if extras else ''}) "
        f"the largest weight per row averages {_range(curve, curve.sentence_unscaled)} **without "
        f"scaling**, but {_range(curve, curve.sentence_scaled)} **with scaling**. "
        f"Random q, k ({curve.n_random} tokens, {curve.n_trials} draws): "
        f"{_range(curve, curve.random_unscaled)} unscaled, "
        f"{_range(curve, curve.random_scaled)} scaled. "
        "Unscaled, the red lines climb towards 1 and the entropy falls towards 0 as d_k grows: "
        "the rows collapse towards one-hot. " + _scaled_lines(curve)
    )


def _scaled_lines(curve):
    """What the green lines do, computed: the random one (averaged over draws) stays in a
    narrow band; the sentence's moves about because every d_k draws new weights."""
    sentence, random = curve.sentence_scaled.max_weight, curve.random_scaled.max_weight
    return (
        f"Scaled, the dashed green line (random q, k, averaged over {curve.n_trials} draws) "
        f"stays between {random.min():.2f} and {random.max():.2f}. The solid green line (your "
        f"sentence) moves between {sentence.min():.2f} and {sentence.max():.2f}: at each d_k "
        "the sentence gets new random weights W_Q, W_K (one draw, not an average), so its ups "
        "and downs come mostly from those draws, not from d_k."
    )


def heatmaps(scaled, unscaled, labels, d_k):
    """The scaled (left) and unscaled (right) attention of a scaling_pair at ``d_k``."""
    T = scaled.temperature
    per_T = "" if T == 1 else f" / {T:g}"  # the sidebar's T, if any
    left, right = st.columns(2)
    for col, result, key, title in (
        (left, scaled, "A_scaled", f"scaled: softmax(QKᵀ/√{d_k}{per_T})"),
        (right, unscaled, "A_unscaled", f"unscaled: softmax(QKᵀ{per_T})"),
    ):
        with col:
            show_matrix(
                result.attention,
                labels,
                labels,
                key=key,
                share=0.5,
                family="A",
                title=title,
                value_name="A_ij",
                kind="probability",
            )


def heatmaps_notice(scaled, unscaled, d_k):
    """What to notice between the two heatmaps: how much sharper the unscaled rows are."""
    n = scaled.n
    if d_k == 1:
        notice(
            "At d_k = 1, √d_k = 1: dividing by it changes nothing, and the two heatmaps are the "
            "same. Move the slider to a larger d_k."
        )
        return
    if n == 1:
        notice("With one token both heatmaps are the single weight 1.")
        return
    c = scaling_contrast(scaled, unscaled)
    if c.max_weight_unscaled > NEARLY_ONE_HOT:
        verdict = "rows have collapsed towards one-hot"
    elif c.max_weight_unscaled - c.max_weight_scaled > 0.1:
        verdict = "rows are sharper, on their way to one-hot"
    else:
        verdict = "here the scores are still small enough that the rows differ little"
    notice(
        f"Without scaling, the largest weight per row averages **{c.max_weight_unscaled:.2f}**: "
        f"{verdict} ({c.one_hot_unscaled} of {n} rows put more than {NEARLY_ONE_HOT} on a single "
        f"key). With scaling it averages **{c.max_weight_scaled:.2f}** ({c.one_hot_scaled} of "
        f"{n} rows above {NEARLY_ONE_HOT}). The reason: the unscaled scores have a standard "
        f"deviation of {c.spread_unscaled:.3g}, √{d_k} = {np.sqrt(d_k):.3g} times the scaled "
        f"ones' {c.spread_scaled:.3g}."
    )


def heatmaps_caption(settings):
    """Which of the two heatmaps the sidebar's settings give, under them."""
    s = settings
    st.caption(
        f"The sidebar has scaling **{'on' if s.scale else 'off'}**: the step-by-step page shows "
        f"the {'left' if s.scale else 'right'}-hand kind at d_k = {s.d_k}. Mask and temperature "
        "here are the sidebar's."
    )


def _gradient_figure(settings, d_k):
    grad = cached_softmax_gradient(settings, d_k)[0]
    root = float(np.sqrt(d_k))
    marks = [(1.0, "scaled: c = 1")] + ([(root, f"unscaled: c = √{d_k}")] if d_k > 1 else [])
    return gradient_chart(grad, marks)


def gradient(settings, d_k):
    """The softmax Jacobian's norm as the scaled logits of the settings' sentence are
    multiplied by c (cached_softmax_gradient's, drawn once for every session), and its reading:
    c = 1 is the scaled softmax, c = √d_k the unscaled one."""
    gradients = cached_softmax_gradient(settings, d_k)
    if gradients is None:
        notice("Every row has at most one key it may attend to: its weight is 1 and J = 0 always.")
        return
    _, at = gradients
    root = float(np.sqrt(d_k))
    draw(
        kept_chart(_gradient_figure, (sentence_of(settings), d_k), *display()),
        "gradient",
        config=toolbar("gradient"),
    )
    g_on, g_off = at.jacobian_norm
    if g_off == 0:
        ratio = "zero to rounding"
    elif g_off < g_on:
        ratio = f"{g_on / g_off:.3g} times smaller"
    else:
        ratio = "no smaller: these rows are far from saturated"
    notice(
        f"With scaling (c = 1) ‖J‖_F, the Frobenius norm of the softmax's Jacobian J, averages "
        f"**{g_on:.3g}** over the rows; without it "
        f"(c = √{d_k} = {root:.3g}) **{g_off:.3g}**, {ratio}."
        + (" The gradient that trains the scores fades as the rows saturate." if d_k > 1 else "")
    )
