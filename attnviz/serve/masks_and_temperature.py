"""Masks and temperature's numbers, kept for every visitor per (settings, mask): the masked
attention and what the mask did, the temperature sweep, and the attention at one temperature.
A key holds the mask packed into bits (32 KB at n = 512), never the array itself; the mask is
unpacked inside. No Streamlit.
"""

import numpy as np

from attnviz.lessons import (
    mask_effect,
    reattend,
    temperature_effect,
    temperature_sweep,
)
from attnviz.serve.example import cached_example
from attnviz.serve.store import kept


def _mask_key(mask):
    """A small hashable stand-in for the (n, n) bool ``mask`` (None: no mask)."""
    return None if mask is None else (len(mask), np.packbits(mask).tobytes())


def _unpack(key):
    """The (n, n) bool mask of a _mask_key (None: no mask)."""
    if key is None:
        return None
    n, bits = key
    return np.unpackbits(np.frombuffer(bits, np.uint8), count=n * n).reshape(n, n).astype(bool)


@kept(entries=16)
def _masked(settings, key):
    # one AttentionResult (up to ~20 MB at the limits) and its MaskEffect per entry
    r, mask = cached_example(settings).result, _unpack(key)
    masked = reattend(r, mask=mask)
    return masked, mask_effect(reattend(r, mask=None), masked, mask)


def masked_attention(settings, mask):
    """(AttentionResult, MaskEffect) of the settings' sentence under ``mask`` ((n, n) bool, or
    None for none), against the same logits unmasked. Cached per (settings, mask)."""
    return _masked(settings, _mask_key(mask))


@kept(entries=16)
def _sweep(settings, key):
    r, mask = cached_example(settings).result, _unpack(key)
    every_key = np.ones((r.n, r.n), dtype=bool)  # the page's "none": no mask, whatever the sidebar
    return temperature_sweep(r, mask=every_key if mask is None else mask)


def cached_temperature_sweep(settings, mask):
    """lessons.temperature_sweep of the settings' sentence under the page's ``mask`` (None: no
    mask), once per (settings, mask)."""
    return _sweep(settings, _mask_key(mask))


@kept(entries=32)
def _at_temperature(settings, key, T):
    # A (n, n), up to 2 MB at the limits, and its TemperatureEffect per entry
    A = reattend(cached_example(settings).result, mask=_unpack(key), temperature=T).attention
    return A, temperature_effect(A, _sweep(settings, key))


def attention_at_temperature(settings, mask, T):
    """(A, TemperatureEffect): the attention at temperature ``T`` under ``mask``, and where it
    lies between the sweep's limits. Cached per (settings, mask, T)."""
    return _at_temperature(settings, _mask_key(mask), T)
