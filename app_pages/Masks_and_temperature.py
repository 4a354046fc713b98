"""How a mask hides keys (−∞ before the softmax) and how a temperature sharpens or flattens each
row."""

import streamlit as st

from attnviz.serve import masks_and_temperature as numbers
from attnviz.ui import lesson
from attnviz.ui.frame import this_page
from attnviz.ui.pages import masks_and_temperature as view
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

example = lesson()
s, labels = example.settings, example.labels
STEPS = this_page().steps
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title, the goal and the formula on the first screen
    with intro(random_weights=True, name="masks_intro"):
        st.markdown(
            "Both act on the logits, just before the softmax. A **mask** sets the logit of every "
            "key a query may not see to −∞, so e^−∞ = 0 and that key gets no weight; the softmax "
            "shares the row among the keys left. A **temperature** T divides the logits: small T "
            "sharpens every row, large T flattens it. The temperature is a teaching knob: standard "
            "attention has none (T = 1; the fixed 1/√d_k and the learned lengths of q and k play "
            "its part). The temperature of a chatbot acts on its output softmax over the next "
            "token."
        )
        st.latex(
            r"A = \mathrm{softmax}\left(\frac{S'}{T} + M\right), \qquad M_{ij} = "
            r"\begin{cases} 0 & \text{query } i \text{ may see key } j \\ "
            r"-\infty & \text{otherwise} \end{cases}"
        )

# 1. Masks ---------------------------------------------------------------------------------------
if show(1):
    st.header(STEPS[0])
# on a projector after the step's charts (step 2 uses it too); in place otherwise
with after_chart("mask_mode_picker"):
    mode, mask = view.pick_mask(s.mask, labels)  # None: no mask; step 2 uses it too
if show(1):
    masked, effect = numbers.masked_attention(s, mask)  # and what the mask did to the unmasked rows
    view.mask_matrices(mask, masked, labels, selectable=mode == "custom")
    view.mask_notices(mode, effect, labels)

# 2. Temperature --------------------------------------------------------------------------------
if show(2):
    st.header(STEPS[1])
    after_chart("temperature_intro").markdown(
        "The softmax sees S' / T. Below 1, T stretches the gaps between the logits and the rows "
        "sharpen; as **T → 0** every row goes one-hot at its largest allowed logit (the argmax), "
        "or splits its weight evenly among keys that tie for it. "
        "Above 1 it shrinks the gaps; as **T → ∞** every row goes uniform over its allowed keys. "
        "Dividing by √d_k is itself a temperature, fixed by d_k. This section uses the mask above."
    )
    with after_chart("temperature"):  # on a projector the slider after the charts
        T = view.temperature_slider(s.temperature)
    sweep = numbers.cached_temperature_sweep(s, mask)
    view.temperature_plot(sweep, labels, T)
    A, at_T = numbers.attention_at_temperature(s, mask, T)
    view.limit_matrices(sweep, A, labels, T)
    view.temperature_notice(at_T, len(labels), T)
