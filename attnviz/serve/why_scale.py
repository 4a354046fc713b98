"""Why scale's numbers, kept for every visitor: the variance of q·k, the saturation curve, the
scaled and unscaled pair and the softmax's gradient, each keyed on small things (Settings, a
few numbers), never on arrays. No Streamlit; every number is read from ``attnviz.lessons``.
"""

from dataclasses import replace

import numpy as np

from attnviz import lessons
from attnviz.lessons import DEFAULT_D_KS, DEFAULT_FACTORS, softmax_gradient_norm
from attnviz.serve.example import cached_example
from attnviz.serve.store import kept
from attnviz.settings import Settings


@kept(entries=16)
def cached_dot_product_variance(d_k, n_samples, seed):
    """lessons.dot_product_variance at every DEFAULT_D_KS and ``d_k``, once per arguments."""
    d_ks = tuple(sorted({*DEFAULT_D_KS, d_k}))
    return lessons.dot_product_variance(d_ks, n_samples=n_samples, seed=seed)


def sentence_of(settings):
    """``settings`` with the sidebar's d_k and scaling as their defaults: the experiments below
    read only the sentence's X, mask and temperature (and d_v), which neither changes, and
    draw their own weights at each d_k. Keyed on it, a change of d_k or scaling in the sidebar
    finds them (and their charts) kept."""
    return replace(settings, d_k=Settings.d_k, scale=Settings.scale)


@kept(entries=32)  # a few KB each
def _saturation(sentence, *, settings):
    return lessons.saturation_curve(cached_example(settings).result, settings.seed)


def cached_saturation_curve(settings):
    """lessons.saturation_curve of the settings' example, once per sentence (``sentence_of``)."""
    return _saturation(sentence_of(settings), settings=settings)


@kept(entries=16)  # two AttentionResults: up to ~40 MB at the limits (n = d = 512)
def _pair(sentence, d_k, *, settings):
    return lessons.scaling_pair(cached_example(settings).result, settings.seed, d_k)


def scaling_pair(settings, d_k):
    """(scaled, unscaled) AttentionResults of the settings' sentence at ``d_k``, once per
    (sentence, d_k). Raises AttentionInputError when the unscaled logits overflow."""
    return _pair(sentence_of(settings), d_k, settings=settings)


@kept(entries=32)  # a few numbers each
def _gradient(sentence, d_k, *, settings):
    logits = scaling_pair(settings, d_k)[0].logits  # (n, n) S' / T, -inf where masked
    if np.isfinite(logits).sum(axis=1).max() < 2:
        return None
    root = float(np.sqrt(d_k))
    return (
        softmax_gradient_norm(logits, DEFAULT_FACTORS),
        softmax_gradient_norm(logits, (1.0, root)),
    )


def cached_softmax_gradient(settings, d_k):
    """(at every DEFAULT_FACTORS, at c = 1 and c = √d_k) SoftmaxGradients of the scaled logits
    of the settings' sentence at ``d_k``; None when no row has two keys to share its weight.

    Once per (sentence, d_k): at n = 512 the 31 factors take about a second. A few numbers per
    entry. Call after scaled_and_unscaled, which stops the page if the pair cannot be computed.
    """
    return _gradient(sentence_of(settings), d_k, settings=settings)
