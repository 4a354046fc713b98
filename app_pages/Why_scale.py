"""Why divide by √d_k? The variance of q·k, saturated softmax rows and the vanishing gradient,
measured."""

import streamlit as st

from attnviz.serve import why_scale as numbers
from attnviz.ui import lesson
from attnviz.ui.pages import why_scale as view
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

example = lesson()
s, labels = example.settings, example.labels
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title and the goal on the first screen only
    with intro(random_weights=True):
        st.markdown(
            "The formula divides the scores by √d_k before the softmax. The usual reason given "
            "(the course module's too) is that *large dot products make the softmax unstable*. "
            "*Unstable* is not the right word: computed as attnviz computes it, subtracting each "
            "row's maximum before the exponential (the cell inspector shows that step), the "
            "softmax never overflows, however large the scores. The real reason is **saturation**: "
            "large scores make each row nearly one-hot, and the softmax's gradient then vanishes, "
            "so the scores stop learning. This page runs the experiments behind that, with the "
            "sidebar's sentence, seed and dimensions."
        )
        st.latex(r"A = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)")

# 1. The variance of q . k --------------------------------------------------------------------
if show(1):
    st.header("1. The variance of q·k grows like d_k")
    after_chart("variance").markdown(
        "Take q and k with d_k independent entries, each of mean 0 and variance 1 (attnviz's "
        "weights are drawn from N(0, 1/d_model), LeCun's fan-in initialisation, so that q and k "
        "come out that way). Then $q \\cdot k = q_1 k_1 + \\dots + q_{d_k} k_{d_k}$ is a sum of "
        "d_k independent terms, each of variance 1, so **Var(q·k) = d_k**: a typical score is "
        "about √d_k in size. Dividing by √d_k brings the variance back to 1, whatever d_k is. The "
        "chart draws random pairs and measures it."
    )
    with after_chart("samples"):  # on a projector the slider after the chart
        n_samples = view.sample_slider()
    var = numbers.cached_dot_product_variance(s.d_k, n_samples, s.seed)
    view.variance_plot(s.d_k, n_samples, s.seed)
    view.variance_notice(var, s.d_k)
    view.variance_table(var)

# 2. Saturation ---------------------------------------------------------------------------------
if show(2):
    st.header("2. Large scores saturate the softmax")
    after_chart("saturation").markdown(
        "The softmax turns gaps between scores into ratios of weights: a gap of g makes one weight "
        "e^g times the other. When the scores spread like √d_k, the largest one soon dominates its "
        "row and the row becomes nearly **one-hot** (entropy near 0, largest weight near 1). The "
        "charts vary d_k for your sentence (everything else as in the sidebar) and for random "
        "q, k, with and without the division by √d_k."
    )
    with after_chart("d_k_2"):
        pick = view.d_k_slider()
    curve = numbers.cached_saturation_curve(s)
    view.saturation_charts(s, pick)
    view.saturation_notice(curve, s)

if (show(3) or show(4)) and not show(2):  # one step on the screen: the d_k it shows
    with after_chart("d_k"):  # on a projector after the step's chart (its title names d_k)
        pick = view.d_k_slider()

# 3. The two heatmaps -------------------------------------------------------------------------
if show(3):
    st.header(f"3. Scaled and unscaled attention at d_k = {pick}")
    scaled, unscaled = view.scaled_and_unscaled(s, pick)  # stops the page if it cannot compute them
    view.heatmaps(scaled, unscaled, labels, pick)
    view.heatmaps_notice(scaled, unscaled, pick)
    view.heatmaps_caption(s)

# 4. The gradient -------------------------------------------------------------------------------
if show(4):
    st.header("4. A saturated softmax stops learning")
    after_chart("gradient").markdown(
        "Training moves W_Q and W_K through the softmax's gradient, its Jacobian "
        "J = diag(a) − a aᵀ. When a row is one-hot, a·(1 − a) is 0 for every weight and J "
        "vanishes: the scores get no signal to change. Leaving out the division multiplies the "
        "logits by c = √d_k; the chart multiplies the scaled logits of the heatmaps above by c."
    )
    view.gradient(s, pick)
