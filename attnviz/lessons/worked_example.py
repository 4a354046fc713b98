r"""A worked example to do by hand: two tokens, small whole numbers, d_k = 4 so that √d_k = 2.

The queries, keys and values are given directly (as if X were the identity, so that Q = W_Q,
K = W_K, V = W_V); the core computes everything else, and the page shows each number's sum.

    q_cat = (1, 0, 1, 0)   k_cat = (1, 1, 0, 0)   v_cat = (2, 0)
    q_sat = (0, 1, 0, 1)   k_sat = (0, 0, 2, 1)   v_sat = (0, 4)

Made up for attnviz (not taken from a textbook). S_cat,sat = 2 but S_sat,cat = 1: the scores
are not symmetric, because a token's query and its key are different vectors.
"""

import numpy as np

from attnviz.core import self_attention

TOKENS = ("cat", "sat")
Q = np.array([[1, 0, 1, 0], [0, 1, 0, 1]], dtype=float)  # (2, d_k = 4): what each token asks
K = np.array([[1, 1, 0, 0], [0, 0, 2, 1]], dtype=float)  # (2, 4): what each token offers
V = np.array([[2, 0], [0, 4]], dtype=float)  # (2, d_v = 2): what each token passes on


def worked_example():
    """Every step of attention on the example's Q, K, V: an AttentionResult (X = I, W = Q, K, V)."""
    return self_attention(np.eye(2), Q, K, V)
