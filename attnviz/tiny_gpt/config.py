"""The tiny GPT's shape (``Config``) and its random starting weights (``init_params``).

Parameter names copy the formulas; ``L.`` stands for the layer's prefix, ``0.`` or ``1.``:

    W_E       (vocab_size, d_model)       token embeddings: row i is token i's vector
    W_pos     (context_length, d_model)   learned position embeddings: row t is position t's
    L.ln1.g, L.ln1.b   (d_model,)         layer norm before attention (gain, bias)
    L.W_Q, L.W_K, L.W_V  (d_model, d_model)  head h uses column block h, width d_k
    L.W_O     (d_model, d_model)          projects the concatenated heads back to d_model
    L.ln2.g, L.ln2.b, L.W_1 (d_model, d_ff), L.b_1 (d_ff,), L.W_2 (d_ff, d_model), L.b_2
              the MLP and its layer norm (only with ``mlp=True``)
    ln_f.g, ln_f.b  (d_model,)            the final layer norm
    W_U       (d_model, vocab_size)       the unembedding: logits = LN(x) W_U
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError

MAX_LAYERS = 2
MAX_HEADS_PER_LAYER = 4
MLP_FACTOR = 4  # d_ff = 4 d_model, as in GPT-2
DTYPES = ("float64", "float32")


@dataclass(frozen=True)
class Config:
    """The shape of a tiny decoder-only Transformer. Hashable, so it can key a cache."""

    vocab_size: int
    context_length: int  # T: the most tokens the model reads at once
    d_model: int = 32
    n_layers: int = 1
    n_heads: int = 1
    mlp: bool = False
    scale: bool = True  # divide the scores by sqrt(d_k), as the formula does
    seed: int = 0
    dtype: str = "float64"  # float64 makes finite-difference checks exact; float32 is faster

    def __post_init__(self):
        checks = (
            (self.vocab_size >= 2, "vocab_size must be at least 2: a model needs a choice"),
            (self.context_length >= 2, "context_length must be at least 2 tokens"),
            (1 <= self.n_layers <= MAX_LAYERS, f"n_layers must be 1 to {MAX_LAYERS}"),
            (
                1 <= self.n_heads <= MAX_HEADS_PER_LAYER,
                f"n_heads must be 1 to {MAX_HEADS_PER_LAYER}",
            ),
            (
                self.d_model >= 1 and self.d_model % self.n_heads == 0,
                f"d_model must be a positive multiple of n_heads={self.n_heads} "
                f"(got {self.d_model}): each head gets d_model / n_heads columns",
            ),
            (self.dtype in DTYPES, f"dtype must be one of {', '.join(DTYPES)}"),
            (self.seed >= 0, "seed must be >= 0"),
        )
        for ok, message in checks:
            if not ok:
                raise AttentionInputError(message)

    @property
    def d_k(self):
        """Width of one head's queries, keys and values: d_model / n_heads."""
        return self.d_model // self.n_heads

    @property
    def d_ff(self):
        """Width of the MLP's hidden layer."""
        return MLP_FACTOR * self.d_model


def param_shapes(config):
    """{name: shape} of every parameter, in a fixed order."""
    D, V, T, F = config.d_model, config.vocab_size, config.context_length, config.d_ff
    shapes = {"W_E": (V, D), "W_pos": (T, D)}
    for layer in range(config.n_layers):
        shapes |= {f"{layer}.ln1.g": (D,), f"{layer}.ln1.b": (D,)}
        shapes |= {f"{layer}.{name}": (D, D) for name in ("W_Q", "W_K", "W_V", "W_O")}
        if config.mlp:
            shapes |= {f"{layer}.ln2.g": (D,), f"{layer}.ln2.b": (D,)}
            shapes |= {f"{layer}.W_1": (D, F), f"{layer}.b_1": (F,)}
            shapes |= {f"{layer}.W_2": (F, D), f"{layer}.b_2": (D,)}
    return shapes | {"ln_f.g": (D,), "ln_f.b": (D,), "W_U": (D, V)}


def init_params(config):
    """Random starting weights for ``config``: {name: array}, the same for the same seed.

    Embeddings are N(0, 1). Each weight matrix is N(0, 1/fan_in) (LeCun), so a unit-variance
    input gives unit-variance outputs: after the layer norm, q and k entries have variance about
    1 and q . k variance about d_k, as on the "Why scale" page. Layer-norm gains start at 1,
    biases at 0. Nothing here has been learned: the model starts by guessing.
    """
    rng = np.random.default_rng(config.seed)
    dtype = np.dtype(config.dtype)
    params = {}
    for name, shape in param_shapes(config).items():
        leaf = name.rsplit(".", 1)[-1]
        if leaf == "g":
            value = np.ones(shape)  # layer-norm gain
        elif leaf.startswith("b"):
            value = np.zeros(shape)  # a bias
        elif name in ("W_E", "W_pos"):
            value = rng.standard_normal(shape)  # embeddings: N(0, 1)
        else:
            value = rng.standard_normal(shape) / np.sqrt(shape[0])  # N(0, 1/fan_in)
        params[name] = value.astype(dtype)
    return params
