"""The settings that decide every number on screen, and the example they make.

Pure Python and numpy (no Streamlit): a ``Settings`` is turned into numbers with ``compute``.
Its link form is ``attnviz.links.shared``: read from the query string with ``from_query`` (bad
values are clamped or ignored, each with a warning), written back with
``settings_query``: a Settings knows nothing of URLs.
"""

from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from attnviz import inputs
from attnviz.core import AttentionResult, self_attention
from attnviz.limits import (
    MAX_TOKENS,
)
from attnviz.masking import causal_mask

DEFAULT_TEXT = "the cat sat on the mat"
MASKS = ("none", "causal")
EMBEDDINGS = ("random", "one-hot")


@dataclass(frozen=True)
class Settings:
    """What the user chose. ``generated`` switches the tokens from ``text`` to t1..tn."""

    text: str = DEFAULT_TEXT
    generated: bool = False
    n: int = 6
    d_model: int = 8
    d_k: int = 4
    d_v: int = 4
    seed: int = 0
    embedding: str = "random"
    positions: bool = False
    mask: str = "none"
    scale: bool = True
    temperature: float = 1.0

    @cached_property  # read many times a run: split once per Settings
    def all_tokens(self):
        """Every token of the text (or t1..tn), before the MAX_TOKENS limit."""
        return inputs.generated_tokens(self.n) if self.generated else inputs.tokenize(self.text)

    @property
    def tokens(self):
        """The tokens used: the first MAX_TOKENS of ``all_tokens``."""
        return self.all_tokens[:MAX_TOKENS]


def shown_temperature(t):
    """``t`` to the 6 significant digits the sidebar shows (its format is "%g"), so the
    temperature used is exactly the one on screen: 0.0123456789 -> 0.0123457."""
    return float(f"{float(t):g}")


@dataclass(frozen=True, eq=False)
class Example:
    """The numbers that one Settings makes.

    Shapes: tokens, labels (n,); E (n, d_model) token embeddings; P (n, d_model) positional
    encodings or None; X = E + P (n, d_model); result holds every step of attention.
    """

    settings: Settings
    tokens: list
    labels: list
    E: np.ndarray
    P: np.ndarray | None
    result: AttentionResult


def embeddings(settings, tokens):
    """(E, P): token embeddings (n, d_model) and positional encodings (n, d_model) or None."""
    if settings.embedding == "one-hot":
        E = inputs.one_hot_embeddings(tokens, settings.d_model)
    else:
        E = inputs.token_embeddings(tokens, settings.d_model, settings.seed)
    P = inputs.sinusoidal_positions(len(tokens), settings.d_model) if settings.positions else None
    return E, P


def compute(settings):
    """Every number for ``settings``. Raises AttentionInputError (e.g. no tokens)."""
    tokens = settings.tokens
    E, P = embeddings(settings, tokens)
    X = E if P is None else E + P  # (n, d_model)
    W_Q, W_K, W_V = inputs.projection_weights(
        settings.d_model, settings.d_k, settings.d_v, settings.seed
    )
    mask = causal_mask(len(tokens)) if settings.mask == "causal" else None
    result = self_attention(
        X, W_Q, W_K, W_V, mask=mask, scale=settings.scale, temperature=settings.temperature
    )
    return Example(settings, tokens, inputs.token_labels(tokens), E, P, result)


SETTING_NAMES = tuple(f.name for f in fields(Settings))
