"""attnviz: scaled dot-product self-attention, every step kept, for teaching.

The math (numpy only) is in ``core``, ``multihead``, ``inputs`` and ``settings``; the Plotly
chart builders and the Streamlit glue live in their own modules and are not imported here, so
``import attnviz`` needs neither Streamlit nor Plotly.
"""

from attnviz.core import (
    FORMULA,
    AttentionResult,
    causal_mask,
    padding_mask,
    self_attention,
    softmax,
    softmax_rows,
)
from attnviz.errors import AttentionInputError
from attnviz.inputs import (
    generated_tokens,
    one_hot_embeddings,
    projection_weights,
    sinusoidal_positions,
    token_embeddings,
    token_labels,
    tokenize,
)
from attnviz.multihead import MultiHeadResult, multi_head_attention
from attnviz.settings import Example, Settings, compute, from_query

__all__ = [
    "FORMULA",
    "AttentionInputError",
    "AttentionResult",
    "Example",
    "MultiHeadResult",
    "Settings",
    "causal_mask",
    "compute",
    "from_query",
    "generated_tokens",
    "multi_head_attention",
    "one_hot_embeddings",
    "padding_mask",
    "projection_weights",
    "self_attention",
    "sinusoidal_positions",
    "softmax",
    "softmax_rows",
    "token_embeddings",
    "token_labels",
    "tokenize",
]
