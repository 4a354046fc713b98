"""Why divide by √d_k: the variance of q·k, saturated softmax rows, and the vanishing gradient."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.charts.lessons import BAND_SE, gradient_chart, saturation_chart, variance_chart
from attnviz.errors import AttentionInputError
from attnviz.lessons import DEFAULT_D_KS, DEFAULT_FACTORS, softmax_gradient_norm
from attnviz.ui import page_setup, show_matrix
from attnviz.ui.lessons import (
    dot_product_variance,
    notice,
    saturation_curve,
    scaling_pair,
    show_chart,
)

SAMPLE_SIZES = (200, 500, 2000, 5000, 20000)
NEARLY_ONE_HOT = 0.9  # a row whose largest weight is above this counts as nearly one-hot

example = page_setup("Why scale")
s = example.settings
labels = example.labels
n = example.result.n

st.title("Why divide by √d_k?")
st.markdown(
    "The formula divides the scores by √d_k before the softmax. The usual reason given is "
    "that *large dot products make the softmax unstable*. This page runs the experiments "
    "behind that sentence, with the sidebar's sentence, seed and dimensions."
)
st.latex(r"A = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)")

# 1. The variance of q . k --------------------------------------------------------------------
st.header("1. The variance of q·k grows like d_k")
st.markdown(
    "Take q and k with d_k independent entries, each of mean 0 and variance 1 (attnviz's "
    "weights are drawn so that q and k come out that way, as Xavier/LeCun initialisation "
    "does). Then $q \\cdot k = q_1 k_1 + \\dots + q_{d_k} k_{d_k}$ is a sum of d_k "
    "independent terms, each of variance 1, so **Var(q·k) = d_k**: a typical score is about "
    "√d_k in size. Dividing by √d_k brings the variance back to 1, whatever d_k is. The "
    "chart draws random pairs and measures it."
)
n_samples = st.select_slider(
    "Random pairs (q, k) drawn for each d_k",
    SAMPLE_SIZES,
    value=2000,
    key="attnviz_lesson_samples",
    help="More pairs, a tighter standard-error band. The draws depend on the sidebar's seed.",
)
d_ks = tuple(sorted({*DEFAULT_D_KS, s.d_k}))
var = dot_product_variance(d_ks, n_samples, s.seed)
show_chart(variance_chart(var, mark_d_k=s.d_k), "variance")
z = (var.variance - var.theory_variance) / var.variance_se  # measured - theory, in std errors
top, mine = -1, d_ks.index(s.d_k)
outside = int(np.sum(np.abs(z) > BAND_SE))
notice(
    f"At d_k = {var.d_k[top]} the {n_samples} products q·k have variance "
    f"**{var.variance[top]:.4g}** (theory {var.d_k[top]}, {abs(z[top]):.1f} standard errors "
    f"off), so a typical score is about ±{np.sqrt(var.variance[top]):.3g}; divided by "
    f"√{var.d_k[top]} the variance is **{var.scaled_variance[top]:.3g}**. At your "
    f"d_k = {s.d_k}: {var.variance[mine]:.4g} unscaled, {var.scaled_variance[mine]:.3g} "
    f"scaled. The measured points follow the line Var = d_k, and the scaled ones stay near 1; "
    + (
        f"all {len(d_ks)} lie within {BAND_SE} standard errors of the theory."
        if outside == 0
        else f"{outside} of {len(d_ks)} lie outside {BAND_SE} standard errors, as about 1 "
        "measurement in 20 does by chance: change the seed or draw more pairs."
    )
)
with st.expander("The numbers"):
    st.dataframe(
        pd.DataFrame(
            {
                "d_k": var.d_k,
                "measured Var(q·k)": var.variance,
                "theory": var.theory_variance,
                "standard error": var.variance_se,
                "off by (standard errors)": z,
                "measured Var(q·k / √d_k)": var.scaled_variance,
                "mean of q·k": var.mean,
            }
        ),
        hide_index=True,
    )

# 2. Saturation ---------------------------------------------------------------------------------
st.header("2. Large scores saturate the softmax")
st.markdown(
    "The softmax turns gaps between scores into ratios of weights: a gap of g makes one weight "
    "e^g times the other. When the scores spread like √d_k, the largest one soon dominates its "
    "row and the row becomes nearly **one-hot** (entropy near 0, largest weight near 1). The "
    "charts vary d_k for your sentence (everything else as in the sidebar) and for random "
    "q, k, with and without the division by √d_k."
)
pick = st.select_slider(
    "d_k for the heatmaps below (marked on the charts)",
    DEFAULT_D_KS,
    value=64,
    key="attnviz_lesson_d_k",
    help="This page's own choice: the sidebar's d_k stays as it is.",
)
curve = saturation_curve(s)
left, right = st.columns(2)
with left:
    show_chart(saturation_chart(curve, "normalised_entropy", mark_d_k=pick), "saturation_entropy")
with right:
    show_chart(saturation_chart(curve, "max_weight", mark_d_k=pick), "saturation_max")


def _range(stats):
    return (
        f"{stats.max_weight[0]:.2f} at d_k = {curve.d_k[0]} → {stats.max_weight[-1]:.2f} at "
        f"d_k = {curve.d_k[-1]}"
    )


if n == 1:
    notice(
        "With one token every row has a single key, which gets weight 1 whatever the scores: "
        "nothing can saturate. Type a longer sentence in the sidebar."
    )
else:
    extras = []
    if s.mask != "none":
        extras.append(f"the {s.mask} mask")
    if s.temperature != 1:
        extras.append(f"T = {s.temperature:g}")
    notice(
        f"For your sentence ({n} tokens{', with ' + ' and '.join(extras) if extras else ''}) "
        f"the largest weight per row averages {_range(curve.sentence_unscaled)} **without "
        f"scaling**, but {_range(curve.sentence_scaled)} **with scaling**. "
        f"Random q, k ({curve.n_random} tokens, {curve.n_trials} draws): "
        f"{_range(curve.random_unscaled)} unscaled, {_range(curve.random_scaled)} scaled. "
        "Unscaled, the red lines climb towards 1 and the entropy falls towards 0 as d_k grows: "
        "the rows collapse towards one-hot. Scaled, the green lines stay nearly flat."
    )

# 3. The two heatmaps -------------------------------------------------------------------------
st.header(f"3. Scaled and unscaled attention at d_k = {pick}")
try:
    scaled, unscaled = scaling_pair(s, pick)
except AttentionInputError as exc:
    st.warning(f"{exc}", icon="⚠️")
    st.stop()
per_T = "" if s.temperature == 1 else f" / {s.temperature:g}"  # the sidebar's T, if any
left, right = st.columns(2)
with left:
    show_matrix(
        scaled.attention,
        labels,
        labels,
        key="A_scaled",
        title=f"scaled: softmax(QKᵀ/√{pick}{per_T})",
        value_name="A_ij",
        kind="probability",
    )
with right:
    show_matrix(
        unscaled.attention,
        labels,
        labels,
        key="A_unscaled",
        title=f"unscaled: softmax(QKᵀ{per_T})",
        value_name="A_ij",
        kind="probability",
    )
max_on, max_off = scaled.attention.max(axis=1), unscaled.attention.max(axis=1)
live = scaled.row_sums > 0
mean_on, mean_off = float(max_on[live].mean()), float(max_off[live].mean())
hot_on, hot_off = int(np.sum(max_on > NEARLY_ONE_HOT)), int(np.sum(max_off > NEARLY_ONE_HOT))
spread_on = float(np.std(scaled.scaled_scores[np.isfinite(scaled.logits)]))
spread_off = float(np.std(unscaled.scores[np.isfinite(unscaled.logits)]))
if pick == 1:
    reading = (
        "At d_k = 1, √d_k = 1: dividing by it changes nothing, and the two heatmaps are the "
        "same. Move the slider to a larger d_k."
    )
elif n == 1:
    reading = "With one token both heatmaps are the single weight 1."
else:
    if mean_off > NEARLY_ONE_HOT:
        verdict = "rows have collapsed towards one-hot"
    elif mean_off - mean_on > 0.1:
        verdict = "rows are sharper, on their way to one-hot"
    else:
        verdict = "here the scores are still small enough that the rows differ little"
    reading = (
        f"Without scaling, the largest weight per row averages **{mean_off:.2f}**: {verdict} "
        f"({hot_off} of {n} rows put more than {NEARLY_ONE_HOT} on a single key). With "
        f"scaling it averages **{mean_on:.2f}** ({hot_on} of {n} rows above {NEARLY_ONE_HOT}). "
        f"The reason: the unscaled scores have a standard deviation of {spread_off:.3g}, "
        f"√{pick} = {np.sqrt(pick):.3g} times the scaled ones' {spread_on:.3g}."
    )
notice(reading)
st.caption(
    f"The sidebar has scaling **{'on' if s.scale else 'off'}**: the step-by-step page shows "
    f"the {'left' if s.scale else 'right'}-hand kind at d_k = {s.d_k}. Mask and temperature "
    "here are the sidebar's."
)

# 4. The gradient -------------------------------------------------------------------------------
st.header("4. A saturated softmax stops learning")
st.markdown(
    "Training moves W_Q and W_K through the softmax's gradient, its Jacobian "
    "J = diag(a) − a aᵀ. When a row is one-hot, a·(1 − a) is 0 for every weight and J "
    "vanishes: the scores get no signal to change. Leaving out the division multiplies the "
    "logits by c = √d_k; the chart multiplies the scaled logits of the heatmaps above by c."
)
if np.isfinite(scaled.logits).sum(axis=1).max() < 2:
    notice("Every row has at most one key it may attend to: its weight is 1 and J = 0 always.")
else:
    root = float(np.sqrt(pick))
    grad = softmax_gradient_norm(scaled.logits, DEFAULT_FACTORS)
    at = softmax_gradient_norm(scaled.logits, (1.0, root))
    marks = [(1.0, "scaled: c = 1")] + ([(root, f"unscaled: c = √{pick}")] if pick > 1 else [])
    show_chart(gradient_chart(grad, marks), "gradient")
    g_on, g_off = at.jacobian_norm
    if g_off == 0:
        ratio = "zero to rounding"
    elif g_off < g_on:
        ratio = f"{g_on / g_off:.3g} times smaller"
    else:
        ratio = "no smaller: these rows are far from saturated"
    notice(
        f"With scaling (c = 1) ‖J‖ averages **{g_on:.3g}** over the rows; without it "
        f"(c = √{pick} = {root:.3g}) **{g_off:.3g}**, {ratio}."
        + (" The gradient that trains the scores fades as the rows saturate." if pick > 1 else "")
    )
