"""The attention-as-geometry page's views: the keys and values table, the figure whose own
sliders turn and stretch the query in the browser, what to notice, and random pairs in d_k
dimensions.

The choice (keys, values, d_k, where the query starts) lives in ``st.session_state`` under
``CHOICE_KEY``, kept across pages; a new session starts from the URL (``geo_*`` parameters,
``attnviz.links.geometry``), and the URL follows the table and the d_k slider. The figure's
sliders move in the browser only: the server never hears of them, so the link keeps where the
query started, not where the student left it. Widget keys start with ``geo_``.
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.charts.dot_products import dot_product_histogram
from attnviz.charts.geometry import geometry_figure
from attnviz.charts.present import readable
from attnviz.charts.style import PRESENT, PRESENT_TEXT_PX, TEXT_PX
from attnviz.lessons.geometry import (
    DEFAULT_KEYS,
    DEFAULT_VALUES,
    length_as_temperature,
    length_beats_angle,
    peak_angles,
    top_weights,
)
from attnviz.limits import (
    GEO_ROW_KEYS,
    MAX_D_K,
    MAX_GEO_COORD,
    MAX_GEO_KEYS,
    MIN_GEO_KEYS,
)
from attnviz.links.geometry import QUERY_NAMES, choice_from_query, pairs_tuple
from attnviz.serve.attention_as_geometry import cached_grid, cached_pairs
from attnviz.serve.finish import kept_chart
from attnviz.ui.charts import CHART_CONFIG, display, draw
from attnviz.ui.sidebar import is_present, page_choice, write_page_params
from attnviz.ui.text import notice

PAGE_PARAMS = QUERY_NAMES
CHOICE_KEY = "geo.choice"  # the GeometryChoice in force, kept across pages
URL_KEY = "geo.url"  # (GeometryChoice read from the URL, its warnings)
BASE_KEY = "geo.base"  # the table the editor started from: its edits are relative to it
TABLE = "geo_table"
D_K = "geo_dk"
CHART = "geometry"
COLUMNS = ("key x", "key y", "value x", "value y")


def _text_px():
    return PRESENT_TEXT_PX if is_present() else TEXT_PX


def start():
    """The choice in force: from the URL in a new session, else as last left."""
    return page_choice(choice_from_query, URL_KEY, CHOICE_KEY)


def _reset():
    state = st.session_state
    state[CHOICE_KEY] = replace(state[CHOICE_KEY], keys=DEFAULT_KEYS, values=DEFAULT_VALUES)
    state.pop(TABLE, None)


def keys_table(choice):
    """Draw the table of keys and values; return the choice with what it holds now.

    Stops the page with a message when the table holds fewer than MIN_GEO_KEYS complete rows.
    """
    state = st.session_state
    if TABLE not in state or BASE_KEY not in state:  # new session, back from a page, reset
        state[BASE_KEY] = (choice.keys, choice.values)
    keys, values = state[BASE_KEY]
    base = pd.DataFrame(np.hstack([keys, values]), columns=list(COLUMNS))
    number = st.column_config.NumberColumn(
        min_value=-MAX_GEO_COORD,
        max_value=MAX_GEO_COORD,
        step=0.1,
        format="%.2f",
        required=True,
        width="small",
    )
    edited = st.data_editor(
        base,
        key=TABLE,
        num_rows="dynamic",
        hide_index=True,
        column_config=dict.fromkeys(COLUMNS, number),
        width="content",
    )
    st.button("Default keys and values", key="geo_reset", on_click=_reset)
    rows = edited[list(COLUMNS)].to_numpy(dtype=float)
    rows = rows[np.isfinite(rows).all(axis=1)]  # a row still being typed is left out
    if len(rows) < MIN_GEO_KEYS:
        st.warning(
            f"The table has {len(rows)} complete rows: the page needs {MIN_GEO_KEYS} to "
            f"{MAX_GEO_KEYS} keys, each with its value. Add a row (+ under the table) or press "
            "“Default keys and values”.",
            icon="✋",
        )
        st.stop()
    if len(rows) > MAX_GEO_KEYS:
        st.warning(
            f"The table has {len(rows)} rows: the page uses the first {MAX_GEO_KEYS}.", icon="✂️"
        )
        rows = rows[:MAX_GEO_KEYS]
    rows = np.clip(rows, -MAX_GEO_COORD, MAX_GEO_COORD)
    new = replace(choice, keys=pairs_tuple(rows[:, :2]), values=pairs_tuple(rows[:, 2:]))
    state[CHOICE_KEY] = new
    return new


def _figure(keys, values, angle, length, text_px):
    """The figure with every frame (about 0.2 s to build)."""
    fig = geometry_figure(cached_grid(keys, values), angle, length, text_px=text_px)
    return readable(fig, PRESENT) if text_px == PRESENT.text_px else fig


def geometry_chart(choice):
    """Draw the figure: its own sliders turn and stretch the query with no rerun. Made and
    finished once per keys, start and text size for every session (``serve.finish.kept_chart``)."""
    args = (choice.keys, choice.values, choice.angle, choice.length, _text_px())
    config = dict(CHART_CONFIG, toImageButtonOptions={"filename": f"attnviz-{CHART}"})
    title = "Query, keys and weights"
    draw(kept_chart(_figure, args, *display(), title=title), CHART, config=config, width="stretch")


def _degrees(values):
    return ", ".join(f"k{j + 1} {v:.0f}°" for j, v in enumerate(values))


def alignment_notice(grid):
    peaks = peak_angles(grid)
    notice(
        "**The weight follows the angle.** q·k_j = |q| |k_j| cos θ_j is largest when q points "
        "along k_j (θ = 0), zero at a right angle and negative when q points away. As the query "
        "turns, the largest weight passes from key to key: with the longest query each key's "
        f"weight peaks at {_degrees(peaks)}, near each key's own direction "
        f"({_degrees(grid.key_angles)}). Not exactly on it: the keys share a total weight of 1, "
        "so a strong neighbour pulls a key's peak away from itself."
    )


def length_notice(grid):
    tops = ", ".join(
        f"{a:.2f} at length {v:g}" for a, v in zip(top_weights(grid), grid.lengths, strict=True)
    )
    gap = length_as_temperature(grid).max()
    notice(
        "**A longer query is a colder softmax.** Averaged over the angles, the largest weight "
        f"is {tops}. Multiplying q by ℓ multiplies every score by ℓ, and "
        "softmax(ℓ s) = softmax(s / T) with T = 1/ℓ: the query's length acts exactly as an "
        "inverse temperature. Checked on this page's grid: the weights at each length and those "
        "of the length-1 query at T = 1/ℓ (a separate self_attention call with that "
        + (
            f"temperature) differ by at most {gap:.1g}."
            if gap
            else "temperature) are the same numbers, to the last bit."
        )
    )


def length_beats_angle_notice(grid):
    case = length_beats_angle(grid)
    if case is None:
        notice(
            "With these keys the key nearest the query in angle always wins. Make one key much "
            "longer than its neighbours (the table above) and look again: length can beat angle."
        )
        return
    w, k = case.winner + 1, case.aligned + 1
    win_score = case.winner_length * np.cos(np.radians(case.winner_gap))
    aligned_score = case.aligned_length * np.cos(np.radians(case.aligned_gap))
    notice(
        f"**A long key can beat a well-aimed one.** At {case.angle:g}° the query is "
        f"{case.aligned_gap:.0f}° from k{k}, yet k{w}, {case.winner_gap:.0f}° away, gets the "
        f"largest weight: q·k = |q| |k| cos θ, and k{w} is {case.winner_length:.2f} long "
        f"against k{k}'s {case.aligned_length:.2f}, so (with |q| = 1) "
        f"{case.winner_length:.2f} × cos {case.winner_gap:.0f}° = {win_score:.2f} beats "
        f"{case.aligned_length:.2f} × cos {case.aligned_gap:.0f}° = {aligned_score:.2f}. The "
        "same key wins at every length of the query: stretching q scales every score alike. "
        "Direction is not everything: a key's length is how loudly it answers every query."
    )


def d_k_slider(choice):
    """The d_k of the random pairs (a Streamlit slider: it draws new pairs on the server)."""
    state = st.session_state
    if D_K not in state:
        state[D_K] = choice.d_k
    st.slider(
        "d_k, the width of the random queries and keys",
        1,
        MAX_D_K,
        key=D_K,
        help=f"1 to {MAX_D_K}. Entries drawn from N(0, 1), as attnviz's weights make them.",
    )
    new = replace(choice, d_k=state[D_K])
    st.session_state[CHOICE_KEY] = new
    return new


def _histogram(d_k, text_px):
    return dot_product_histogram(cached_pairs(d_k), text_px=text_px)


def d_k_histogram(d_k):
    """The random pairs' q·k at ``d_k`` (cached_pairs'), drawn once for every session."""
    config = dict(CHART_CONFIG, toImageButtonOptions={"filename": "attnviz-geo-dk"})
    title = "q·k of random pairs"
    args = (d_k, _text_px())
    draw(
        kept_chart(_histogram, args, *display(), title=title),
        "geo_dk_chart",
        config=config,
        width="stretch",
    )


def d_k_notice(pairs):
    d = pairs.d_k
    notice(
        f"**Dividing by √d_k undoes the growth.** In d_k = {d} dimensions a random query is "
        f"about {pairs.query_lengths.mean():.1f} long (√{d} = {np.sqrt(d):.1f}), and random q "
        f"and k are nearly perpendicular: cos θ spreads ±{pairs.cosines.std():.2f} "
        f"(1/√{d} = {1 / np.sqrt(d):.2f}). Their product q·k = |q| |k| cos θ spreads "
        f"±{pairs.scores.std():.1f}, about √d_k. A long query is a cold softmax: over "
        f"{GEO_ROW_KEYS} random keys the largest weight averages "
        f"{pairs.top_weight.mean():.2f} without the division. Divided by √d_k the scores "
        f"spread ±{pairs.scaled_scores.std():.2f} whatever d_k, and the largest weight averages "
        f"{pairs.top_weight_scaled.mean():.2f}: dividing by √d_k is shortening the query back "
        "to about the length of the plane's, where the softmax is neither flat nor one-hot."
    )


def sync_url(choice):
    """Write the page's parameters into the URL (the sidebar's settings stay as they are)."""
    write_page_params(PAGE_PARAMS, choice.to_query())
