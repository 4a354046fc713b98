"""What the lesson pages share: their experiments cached per server, and line charts on a page."""

import streamlit as st

from attnviz import lessons

CHART_CONFIG = {"displaylogo": False}


@st.cache_resource(max_entries=16, show_spinner=False)
def dot_product_variance(d_ks, n_samples, seed):
    """lessons.dot_product_variance, once per (d_ks, n_samples, seed). Read-only."""
    return lessons.dot_product_variance(d_ks, n_samples=n_samples, seed=seed)


@st.cache_resource(max_entries=32, show_spinner=False)
def saturation_curve(settings):
    """lessons.saturation_curve(settings), once per settings. Read-only."""
    return lessons.saturation_curve(settings)


@st.cache_resource(max_entries=64, show_spinner=False)
def scaling_pair(settings, d_k):
    """lessons.scaling_pair(settings, d_k): (scaled, unscaled) AttentionResults. Read-only."""
    return lessons.scaling_pair(settings, d_k)


@st.cache_resource(max_entries=32, show_spinner=False)
def permutation_experiment(settings, seed):
    """lessons.permutation_experiment(settings, seed=seed), once per pair. Read-only."""
    return lessons.permutation_experiment(settings, seed=seed)


def show_chart(fig, key):
    """Draw a Plotly figure built by ``attnviz.charts.lessons`` under ``key``."""
    config = dict(CHART_CONFIG, toImageButtonOptions={"filename": f"attnviz-{key}"})
    st.plotly_chart(fig, key=key, config=config)


def notice(text):
    """What the student should notice, computed from the numbers: a highlighted paragraph.

    ``text`` is markdown; any token label in it must already be escaped with ``md_escape``.
    """
    st.info(text, icon="👀")


def follow(key, shared):
    """Start the page-local widget ``key`` at the shared setting's value ``shared``.

    The widget then keeps the student's choice, until the shared setting changes in the sidebar:
    then it jumps to the new value, so the page answers the sidebar. Call before the widget is
    drawn, and draw it without a default (``value``/``index``).
    """
    state = st.session_state
    memo = f"{key}.shared"
    if key not in state or state.get(memo) != shared:
        state[key] = shared
    state[memo] = shared
