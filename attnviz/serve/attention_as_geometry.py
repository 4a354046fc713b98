"""Attention as geometry's numbers, kept for every visitor: the query at every angle and length
of the grid over the keys, once per keys, and the random pairs of a d_k. No Streamlit.
"""

from attnviz.lessons.dot_products import random_pairs
from attnviz.lessons.geometry import (
    geometry_grid,
)
from attnviz.serve.store import kept


@kept(entries=16)
def cached_grid(keys, values):
    """The query at every angle and length of the grid over ``keys``: the core, once per keys."""
    return geometry_grid(keys, values)


@kept(entries=8)
def cached_pairs(d_k):
    return random_pairs(d_k)
