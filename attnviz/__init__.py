"""attnviz: scaled dot-product self-attention, every step kept, for teaching.

The math (numpy only) is in ``core``, ``multihead``, ``inputs`` and ``settings``; the Plotly
chart builders and the Streamlit glue live in their own modules and are not imported here, so
``import attnviz`` needs neither Streamlit nor Plotly.

The real pretrained model (``load_pretrained``, ``ModelLoadError``, ``PretrainedModel``) is in
``attnviz.model.pretrained``, imported on first use: ``safetensors`` and ``tokenizers`` load
only with a model.
"""

from attnviz.checks import AttentionInputError
from attnviz.core import FORMULA, AttentionResult, masked_softmax, self_attention
from attnviz.inputs import (
    generated_tokens,
    one_hot_embeddings,
    projection_weights,
    sinusoidal_positions,
    token_embeddings,
    token_labels,
    tokenize,
)
from attnviz.links.shared import from_query
from attnviz.masking import causal_mask, padding_mask
from attnviz.multihead import MultiHeadResult, multi_head_attention
from attnviz.settings import Example, Settings, compute
from attnviz.softmax import softmax, softmax_rows
from attnviz.tiled import TiledResult, attention_memory, tiled_attention
from attnviz.version import __version__ as __version__

_PRETRAINED = ("ModelLoadError", "PretrainedModel", "load_pretrained")


def __getattr__(name):
    if name in _PRETRAINED:  # imported on first use, so `import attnviz` stays light
        from attnviz.model import pretrained

        return getattr(pretrained, name)
    raise AttributeError(f"module 'attnviz' has no attribute {name!r}")


__all__ = [
    "FORMULA",
    "AttentionInputError",
    "AttentionResult",
    "Example",
    "ModelLoadError",
    "MultiHeadResult",
    "PretrainedModel",
    "Settings",
    "TiledResult",
    "attention_memory",
    "causal_mask",
    "compute",
    "from_query",
    "generated_tokens",
    "load_pretrained",
    "masked_softmax",
    "multi_head_attention",
    "one_hot_embeddings",
    "padding_mask",
    "projection_weights",
    "self_attention",
    "sinusoidal_positions",
    "softmax",
    "softmax_rows",
    "tiled_attention",
    "token_embeddings",
    "token_labels",
    "tokenize",
]
