r"""A worked example to do by hand: two tokens, small whole numbers, d_k = 4 so that √d_k = 2.

The queries, keys and values are given directly (as if X were the identity, so that Q = W_Q,
K = W_K, V = W_V); the core computes everything else, and the page shows each number's sum.

    q_dog = (1, 0, 1, 0)   k_dog = (1, 1, 0, 0)   v_dog = (2, 0)
    q_ran = (0, 1, 0, 1)   k_ran = (0, 0, 2, 1)   v_ran = (0, 4)

Made up for attnviz (not taken from a textbook). S_dog,ran = 2 but S_ran,dog = 1: the scores
are not symmetric, because a token's query and its key are different vectors.
"""

import numpy as np

from attnviz.core import self_attention

TOKENS = ("dog", "ran")  # not in the default sentence, whose tokens have other vectors
Q = np.array([[1, 0, 1, 0], [0, 1, 0, 1]], dtype=float)  # (2, d_k = 4): what each token asks
K = np.array([[1, 1, 0, 0], [0, 0, 2, 1]], dtype=float)  # (2, 4): what each token offers
V = np.array([[2, 0], [0, 4]], dtype=float)  # (2, d_v = 2): what each token passes on


def worked_example():
    """Every step of attention on the example's Q, K, V: an AttentionResult (X = I, W = Q, K, V)."""
    return self_attention(np.eye(2), Q, K, V)
