r"""A BERT encoder's forward pass in numpy, every step kept, built on the lessons' own attention.

Glossary (the names copy the formulas; BERT's are in brackets):

    n         tokens, including [CLS] and [SEP]
    d_model   hidden width (hidden_size, 384 for MiniLM);  d_ff  feed-forward width (1536)
    n_heads   heads per layer (12);  d_k = d_v = d_model / n_heads (32)
    X         (n, d_model) a layer's input: the embeddings for layer 0
    W_Q, W_K, W_V  (d_model, d_model), head h uses column block h (query, key, value .weight^T)
    W_O       (d_model, d_model) the projection after the heads (attention.output.dense)
    W_1, W_2  (d_model, d_ff) and (d_ff, d_model) the feed-forward (intermediate, output)

One layer (BERT normalises after each residual sum, "post-LN"):

.. math::

    \mathrm{head}_h = \mathrm{softmax}\left(\frac{(XW_Q^h + b_Q^h)(XW_K^h + b_K^h)^T}
        {\sqrt{d_k}}\right)(XW_V^h + b_V^h)

    Y = \mathrm{LayerNorm}\left(X + \mathrm{Concat}(\mathrm{head}_1, \dots,
        \mathrm{head}_H)\,W_O + b_O\right)

    X_{\mathrm{next}} = \mathrm{LayerNorm}\left(Y + \mathrm{GELU}(YW_1 + b_1)\,W_2 + b_2\right)

The embeddings are ``LayerNorm(word + position + token_type)``, token type 0 for one sentence.
A single sentence has no padding, so no head is masked.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.core import self_attention
from attnviz.model.gelu import gelu
from attnviz.multihead import MultiHeadResult, multi_head_attention
from attnviz.results import freeze_arrays


@dataclass(frozen=True)
class BertConfig:
    """The shape of a BERT encoder, read from its ``config.json``."""

    vocab_size: int
    d_model: int  # hidden_size
    n_layers: int  # num_hidden_layers
    n_heads: int  # num_attention_heads
    d_ff: int  # intermediate_size
    max_positions: int  # max_position_embeddings: the most tokens one input may have
    type_vocab_size: int
    layer_norm_eps: float

    @property
    def d_k(self):
        return self.d_model // self.n_heads

    @classmethod
    def from_dict(cls, raw):
        """Build from Hugging Face's config.json; raise ValueError for what this code can't run."""
        for key, wanted in (
            ("model_type", "bert"),
            ("hidden_act", "gelu"),
            ("position_embedding_type", "absolute"),
        ):
            if raw.get(key, wanted) != wanted:
                raise ValueError(f"{key} is {raw[key]!r}, but only {wanted!r} is supported")
        config = cls(
            vocab_size=int(raw["vocab_size"]),
            d_model=int(raw["hidden_size"]),
            n_layers=int(raw["num_hidden_layers"]),
            n_heads=int(raw["num_attention_heads"]),
            d_ff=int(raw["intermediate_size"]),
            max_positions=int(raw["max_position_embeddings"]),
            type_vocab_size=int(raw.get("type_vocab_size", 2)),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
        )
        if config.d_model % config.n_heads:
            raise ValueError(f"hidden_size {config.d_model} is not a multiple of the heads")
        return config


@dataclass(frozen=True, eq=False)
class LayerWeights:
    """One encoder layer's weights in the ``x @ W`` convention (Hugging Face's ``weight.T``)."""

    W_Q: np.ndarray  # (d_model, d_model)
    b_Q: np.ndarray  # (d_model,)
    W_K: np.ndarray
    b_K: np.ndarray
    W_V: np.ndarray
    b_V: np.ndarray
    W_O: np.ndarray  # (d_model, d_model)
    b_O: np.ndarray
    ln_attention: tuple[np.ndarray, np.ndarray]  # (gamma, beta), each (d_model,)
    W_1: np.ndarray  # (d_model, d_ff)
    b_1: np.ndarray  # (d_ff,)
    W_2: np.ndarray  # (d_ff, d_model)
    b_2: np.ndarray  # (d_model,)
    ln_output: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True, eq=False)
class BertWeights:
    """Every weight of the encoder. Embedding tables stay float32; the rest is in ``dtype``."""

    word: np.ndarray  # (vocab_size, d_model)
    position: np.ndarray  # (max_positions, d_model)
    token_type: np.ndarray  # (type_vocab_size, d_model)
    ln_embeddings: tuple[np.ndarray, np.ndarray]
    layers: tuple[LayerWeights, ...]


@dataclass(frozen=True, eq=False)
class LayerTrace:
    """Every step of one encoder layer. Arrays are read-only.

    Shapes: X (n, d_model); multi_head.heads[h] an AttentionResult with Q, K, V (n, d_k) and
    scores, scaled_scores, attention (n, n); multi_head.concat (n, d_model); multi_head.output
    (n, d_model) = concat W_O + b_O; attended (n, d_model) = LayerNorm(X + multi_head.output);
    ffn_hidden (n, d_ff) = GELU(attended W_1 + b_1); ffn_output (n, d_model) = ffn_hidden W_2 +
    b_2; output (n, d_model) = LayerNorm(attended + ffn_output), the next layer's X.
    """

    X: np.ndarray
    multi_head: MultiHeadResult
    attended: np.ndarray
    ffn_hidden: np.ndarray
    ffn_output: np.ndarray
    output: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def heads(self):
        """The layer's n_heads AttentionResults, one per head, as from ``self_attention``."""
        return self.multi_head.heads

    @property
    def attention(self):
        """(n_heads, n, n) every head's attention matrix."""
        return self.multi_head.attention


@dataclass(frozen=True, eq=False)
class EncoderTrace:
    """The encoder's forward pass over one text, every step kept. Arrays are read-only.

    Shapes: token_ids (n,); embeddings (n, d_model), word + position + token type before the
    LayerNorm; hidden_states (n_layers + 1, n, d_model): [0] the normalised embeddings, [l] the
    output of layer l (Hugging Face's ``hidden_states``); layers[l] the LayerTrace of layer l.
    """

    text: str
    tokens: tuple[str, ...]
    token_ids: np.ndarray
    config: BertConfig
    embeddings: np.ndarray
    hidden_states: np.ndarray
    layers: tuple[LayerTrace, ...]

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def n(self):
        return len(self.tokens)

    @property
    def attention(self):
        """(n_layers, n_heads, n, n) every head's attention matrix, as Hugging Face returns them."""
        return np.stack([layer.attention for layer in self.layers])


def load_weights(get, config, dtype=np.float64):
    """BertWeights from Hugging Face's tensor names; ``get(name)`` returns that numpy tensor.

    Linear weights are stored (out, in) for ``x @ W.T``; they are transposed here to (in, out)
    so that head h's block of W_Q is its columns, as in the lessons. Raises ValueError naming
    the first tensor whose shape is not what ``config`` says, or that holds NaN or infinity (a
    damaged file: a trained model's weights are finite).
    """
    d, d_ff = config.d_model, config.d_ff

    def tensor(name, shape, table_dtype=None):
        value = np.asarray(get(name))
        if value.shape != shape:
            raise ValueError(f"tensor {name} has shape {value.shape}, expected {shape}")
        value = value.astype(table_dtype or dtype, copy=False)
        if not np.isfinite(value).all():
            bad = int(np.size(value) - np.isfinite(value).sum())
            raise ValueError(
                f"tensor {name} holds {bad} NaN or infinite numbers: the file is damaged"
            )
        return value

    def linear(prefix, d_in, d_out):  # (out, in) -> (in, out), and the bias
        W = tensor(f"{prefix}.weight", (d_out, d_in)).T.copy()  # a contiguous (in, out)
        return W, tensor(f"{prefix}.bias", (d_out,))

    def norm(prefix):
        return tensor(f"{prefix}.weight", (d,)), tensor(f"{prefix}.bias", (d,))

    layers = []
    for i in range(config.n_layers):
        p = f"encoder.layer.{i}"
        W_Q, b_Q = linear(f"{p}.attention.self.query", d, d)
        W_K, b_K = linear(f"{p}.attention.self.key", d, d)
        W_V, b_V = linear(f"{p}.attention.self.value", d, d)
        W_O, b_O = linear(f"{p}.attention.output.dense", d, d)
        W_1, b_1 = linear(f"{p}.intermediate.dense", d, d_ff)
        W_2, b_2 = linear(f"{p}.output.dense", d_ff, d)
        layers.append(
            LayerWeights(
                W_Q=W_Q,
                b_Q=b_Q,
                W_K=W_K,
                b_K=b_K,
                W_V=W_V,
                b_V=b_V,
                W_O=W_O,
                b_O=b_O,
                ln_attention=norm(f"{p}.attention.output.LayerNorm"),
                W_1=W_1,
                b_1=b_1,
                W_2=W_2,
                b_2=b_2,
                ln_output=norm(f"{p}.output.LayerNorm"),
            )
        )
    f32 = np.float32  # the tables are large and only a few rows are used: keep them float32
    return BertWeights(
        word=tensor("embeddings.word_embeddings.weight", (config.vocab_size, d), f32),
        position=tensor("embeddings.position_embeddings.weight", (config.max_positions, d), f32),
        token_type=tensor(
            "embeddings.token_type_embeddings.weight", (config.type_vocab_size, d), f32
        ),
        ln_embeddings=norm("embeddings.LayerNorm"),
        layers=tuple(layers),
    )


def layer_norm(x, gamma, beta, eps):
    """Normalise each row of ``x`` to mean 0 and variance 1, then scale and shift per column."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # biased, as PyTorch's LayerNorm
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def head_attention(weights, config, X, layer, head):
    """Head ``head`` of layer ``layer`` recomputed on its own from the model's weights.

    ``self_attention(X, W_Q^h, W_K^h, W_V^h)`` with the model's biases, where W^h is column
    block h (width d_k) of the layer's W_Q, W_K, W_V, exactly as the lessons compute one head.
    ``X`` (n, d_model) is the layer's input (``EncoderTrace.hidden_states[layer]``).
    """
    w = weights.layers[layer]
    block = slice(head * config.d_k, (head + 1) * config.d_k)
    return self_attention(
        X,
        w.W_Q[:, block],
        w.W_K[:, block],
        w.W_V[:, block],
        b_Q=w.b_Q[block],
        b_K=w.b_K[block],
        b_V=w.b_V[block],
    )


def encoder_layer(X, w, config):
    """One post-LN BERT layer over ``X`` (n, d_model) -> LayerTrace."""
    eps = config.layer_norm_eps
    multi_head = multi_head_attention(
        X,
        w.W_Q,
        w.W_K,
        w.W_V,
        w.W_O,
        n_heads=config.n_heads,
        b_Q=w.b_Q,
        b_K=w.b_K,
        b_V=w.b_V,
        b_O=w.b_O,
    )  # every head is self_attention(X, W_Q[:, block h], ...); output (n, d_model)
    attended = layer_norm(X + multi_head.output, *w.ln_attention, eps)  # residual, LayerNorm
    ffn_hidden = gelu(attended @ w.W_1 + w.b_1)  # (n, d_model) @ (d_model, d_ff) -> (n, d_ff)
    ffn_output = ffn_hidden @ w.W_2 + w.b_2  # (n, d_ff) @ (d_ff, d_model) -> (n, d_model)
    output = layer_norm(attended + ffn_output, *w.ln_output, eps)
    return LayerTrace(
        X=X,
        multi_head=multi_head,
        attended=attended,
        ffn_hidden=ffn_hidden,
        ffn_output=ffn_output,
        output=output,
    )


def encode(weights, config, token_ids, *, text="", tokens=(), dtype=np.float64):
    """Run the encoder over ``token_ids`` (n,) of one sentence -> EncoderTrace.

    The caller checks that ``n <= config.max_positions`` and that every id is in the vocabulary.
    """
    token_ids = np.asarray(token_ids, dtype=np.int64)
    n = token_ids.shape[0]
    embeddings = (
        weights.word[token_ids].astype(dtype)
        + weights.position[:n].astype(dtype)  # positions 0 .. n-1
        + weights.token_type[0].astype(dtype)  # one sentence: every token is of type 0
    )  # (n, d_model)
    X = layer_norm(embeddings, *weights.ln_embeddings, config.layer_norm_eps)
    hidden_states = [X]
    layers = []
    for w in weights.layers:
        layer = encoder_layer(hidden_states[-1], w, config)
        layers.append(layer)
        hidden_states.append(layer.output)
    return EncoderTrace(
        text=text,
        tokens=tuple(tokens),
        token_ids=token_ids,
        config=config,
        embeddings=embeddings,
        hidden_states=np.stack(hidden_states),
        layers=tuple(layers),
    )
