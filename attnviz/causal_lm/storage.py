"""How a chat model's weights are stored, counted from the weights themselves (no Streamlit):
the page's sentence about 4-bit blocks is made from these counts, so it stays true for any
source (a GGUF file mixes 4-bit and 8-bit blocks with float32 gains; a Hub folder is bfloat16).
"""

from collections import Counter

import numpy as np

from attnviz.causal_lm.weights import MATRICES, BFloat16, BlockQuantized

# How each kind is told to a student, in the order the sentence names them
KINDS = {
    "4-bit": "4-bit (each block of 32 shares a scale and an offset)",
    "8-bit": "8-bit (each block of 32 shares a scale)",
    "bfloat16": "as bfloat16",
    "float32": "in full precision (float32)",
}


def _kind(tensor):
    if isinstance(tensor, BlockQuantized):
        return "4-bit" if tensor.m is not None else "8-bit"
    if isinstance(tensor, BFloat16):
        return "bfloat16"
    return "float32"  # Dense, or a gain vector


def _size(tensor):
    return int(np.prod(tensor.shape))


def storage_counts(weights):
    """{kind: (number of weights, [what they are])} of a ``ModelWeights``, kinds as in KINDS."""
    counts, names = Counter(), {}
    parts = [("the token embedding", weights.E), ("the norms' gains", weights.g_final)]
    for layer in weights.layers:
        parts += [("the blocks' matrices", getattr(layer, name)) for name in MATRICES]
        parts += [("the norms' gains", layer.g_attn), ("the norms' gains", layer.g_ffn)]
    for what, tensor in parts:
        kind = _kind(tensor)
        counts[kind] += _size(tensor)
        names.setdefault(kind, [])
        if what not in names[kind]:
            names[kind].append(what)
    return {kind: (counts[kind], names[kind]) for kind in KINDS if counts[kind]}


def storage_sentence(weights):
    """ "the blocks' matrices (106.2 M weights) are stored 4-bit (…); the token embedding
    (28.3 M) 8-bit (…); the norms' gains (35,136) in full precision (float32)"."""
    parts = []
    for kind, (count, names) in storage_counts(weights).items():
        size = f"{count / 1e6:.1f} M" if count >= 50_000 else f"{count:,}"
        verb = "" if parts else " are stored"
        parts.append(
            f"{' and '.join(names)} ({size}{'' if parts else ' weights'}){verb} {KINDS[kind]}"
        )
    return "; ".join(parts)
