"""See a query and its keys as arrows: the weight follows the angle, a longer query is a colder
softmax, and dividing by √d_k undoes the growth of q·k with dimension."""

import streamlit as st

from attnviz.serve import attention_as_geometry as numbers
from attnviz.ui import page_settings
from attnviz.ui.pages import attention_as_geometry as geo
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

page_settings()  # none of them used: its queries and keys are its own
show = lesson_steps()  # in projector mode one at a time
if first_screen(show):  # the title and the goal on the first screen only
    with intro():
        st.info(
            "The keys, values and queries on this page are **chosen by hand, not learned**: two "
            "numbers each (d_k = 2), so that every one of them is an arrow you can see. A trained "
            "model makes its own from the tokens, with W_Q and W_K.",
            icon="🖐️",
        )
        st.markdown(
            "A score is a dot product, and a dot product is geometry: the length of one arrow, "
            "times the length of the other, times the cosine of the angle between them."
        )
        st.latex(
            r"q \cdot k_j = |q|\,|k_j| \cos\theta_j \qquad a_j = \mathrm{softmax}_j"
            r"\left(\frac{q \cdot k_j}{\sqrt{d_k}}\right) \qquad \text{output} = \sum_j a_j v_j"
        )
choice = geo.start()
if show(1):
    with after_chart("keys"):  # on a projector the figure first
        left, right = st.columns(2)
        with left:
            choice = geo.keys_table(choice)  # stops the page when it holds too few keys
        right.markdown(
            "**Try it.** Drag the **angle** slider under the figure: the query turns and every "
            "number follows at once, in your browser. Then drag the **length** slider. Each key's "
            "arrow is as thick as its weight. Edit the table to move the keys and values; the rows "
            "are k1, k2, … (and v1, v2, …) from the top.\n\nBefore you open each answer below, "
            "guess it from the figure."
        )
    grid = numbers.cached_grid(choice.keys, choice.values)
    geo.geometry_chart(choice)
    (st.markdown if is_present() else st.caption)(  # the colours' legend, on a projector too
        "Left: the query q (purple), the keys (orange) and the unit circle. Middle: the values "
        "(blue) and the output Σ a_j v_j (pink), a weighted average, so it stays inside the shape "
        "the values span. Right and below: the weights and the numbers behind them. Every number "
        "is the core's self_attention, computed for every angle and length before the page was "
        "sent. The link keeps the keys and values, not where you leave the sliders."
    )

    st.header("What the figure shows")
    with st.expander("1. Turn the query all the way round: which key wins, and when?"):
        geo.alignment_notice(grid)
    with st.expander("2. Keep the angle, make the query longer: what happens to the bars?"):
        geo.length_notice(grid)
        st.latex(
            r"\mathrm{softmax}\left(\frac{\ell\, q \cdot k}{\sqrt{d_k}}\right) = \mathrm{softmax}"
            r"\left(\frac{q \cdot k / \sqrt{d_k}}{T}\right), \quad T = \frac{1}{\ell}"
        )
    with st.expander("3. Point the query straight at k2: does k2 win?"):
        geo.length_beats_angle_notice(grid)

if show(2):
    st.header("4. More dimensions: why divide by √d_k")
    after_chart("more_dimensions").markdown(
        "Real heads have d_k = 64 or more. Draw random queries and keys of that width and look at "
        "their dot products: the plane's arrows become long, and nearly perpendicular."
    )
    left, right = st.columns([2, 3])
    with left:
        choice = geo.d_k_slider(choice)
    pairs = numbers.cached_pairs(choice.d_k)
    with right:
        geo.d_k_histogram(choice.d_k)
    with left, st.expander("What changes with d_k?"):
        geo.d_k_notice(pairs)
geo.sync_url(choice)
