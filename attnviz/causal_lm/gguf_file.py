"""Read a GGUF file (llama.cpp's format) with the ``gguf`` package: config, tokenizer, weights.

Tensor names (GGUF -> Hugging Face): token_embd -> embed_tokens; blk.l.attn_q / attn_k / attn_v
/ attn_output -> layers.l.self_attn.q_proj / k_proj / v_proj / o_proj; blk.l.ffn_gate / ffn_up /
ffn_down -> mlp.gate_proj / up_proj / down_proj; blk.l.attn_norm / ffn_norm -> input_layernorm /
post_attention_layernorm; output_norm -> norm.

Two things differ from the Hugging Face weights, and are handled here as transformers does:
the rows of attn_q and attn_k are permuted for llama.cpp's RoPE layout (undone with
``unpermute_gguf_rows``), and most matrices are 4-bit blocks (kept as ``BlockQuantized``).
"""

import numpy as np

from attnviz.causal_lm.config import LlamaConfig
from attnviz.causal_lm.tokens import build_tokenizer
from attnviz.causal_lm.weights import (
    BlockQuantized,
    Dense,
    ModelWeights,
    StoredLayer,
    unpermute_gguf_rows,
)

CONTROL = 3  # tokenizer.ggml.token_type of a control (special) token
LAYER_TENSORS = {
    "W_Q": "attn_q",
    "W_K": "attn_k",
    "W_V": "attn_v",
    "W_O": "attn_output",
    "W_gate": "ffn_gate",
    "W_up": "ffn_up",
    "W_down": "ffn_down",
}


def _reader(path):
    """``gguf.GGUFReader`` over a plain array view of the file.

    The reader slices its ``np.memmap`` once per field part; with 49,152 tokens and 48,900 merges
    that is about a million memmap slices, whose bookkeeping took 20 s here. A plain ndarray view
    of the same mapping reads the same bytes in about 2 s.
    """
    import gguf

    class PlainArrayReader(gguf.GGUFReader):
        @property
        def data(self):
            return self._plain

        @data.setter
        def data(self, value):
            self._plain = np.asarray(value)  # the same mapped bytes, without memmap's slicing

    return PlainArrayReader(str(path))


def _value(field):
    """A metadata field's value: str, int, float, bool, or a list of them."""
    import gguf

    T = gguf.GGUFValueType

    def one(kind, part):
        if kind == T.STRING:
            return bytes(part).decode("utf-8")
        value = part[0].item()
        return bool(value) if kind == T.BOOL else value

    if field.types[0] == T.ARRAY:
        kind = field.types[-1]
        return [one(kind, field.parts[i]) for i in field.data]
    return one(field.types[0], field.parts[field.data[0]])


def metadata(reader):
    """``{key: value}`` of every metadata field."""
    return {key: _value(field) for key, field in reader.fields.items() if field.types}


def stored_matrix(tensor):
    """A GGUF tensor as Dense, or BlockQuantized for Q4_1 and Q8_0 (rows, cols as numpy)."""
    import gguf

    kind = tensor.tensor_type.name
    shape = tuple(int(s) for s in reversed(tensor.shape))  # GGUF lists the fastest axis first
    if kind in ("Q4_1", "Q8_0"):
        return BlockQuantized.from_gguf_blocks(tensor.data, shape, kind)
    values = gguf.dequantize(tensor.data, tensor.tensor_type)  # F32, F16 and every other type
    # a copy: an F32 tensor comes back as a view of the mapped file, which would keep all of
    # the file's pages (98 MB) mapped and counted in the server's memory
    return Dense(np.array(values.reshape(shape), dtype=np.float32, copy=True))


def read_gguf(path, progress=None):
    """(config, tokenizer, weights) from the GGUF file ``path``.

    ``progress(done, total)`` is called after each tensor. Raises ValueError (or what ``gguf``
    raises) for a file that is not a llama GGUF with the expected tensors.
    """
    reader = _reader(path)
    meta = metadata(reader)
    config = LlamaConfig.from_gguf(meta)
    tokens, merges = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.merges"]
    kinds = meta.get("tokenizer.ggml.token_type", [1] * len(tokens))
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise ValueError("only byte-level BPE tokenizers (tokenizer.ggml.model 'gpt2') are read")
    tokenizer = build_tokenizer(tokens, merges, [i for i, k in enumerate(kinds) if k == CONTROL])
    tensors = {t.name: t for t in reader.tensors}
    if "output.weight" in tensors:
        raise ValueError("the file has its own output layer; only tied embeddings are supported")
    d, dh = config.d_model, config.d_head
    shapes = {
        "W_Q": (config.n_heads * dh, d),
        "W_K": (config.n_kv_heads * dh, d),
        "W_V": (config.n_kv_heads * dh, d),
        "W_O": (d, config.n_heads * dh),
        "W_gate": (config.d_ff, d),
        "W_up": (config.d_ff, d),
        "W_down": (d, config.d_ff),
    }
    total, done = len(tensors), 0

    def take(name, shape):
        nonlocal done
        if name not in tensors:
            raise ValueError(f"tensor {name} is missing")
        matrix = stored_matrix(tensors[name])
        if matrix.shape != shape:
            raise ValueError(f"tensor {name} has shape {matrix.shape}, expected {shape}")
        check_finite(name, matrix)
        done += 1
        if progress is not None:
            progress(done, total)
        return matrix

    def gain(name):
        return take(name, (d,)).dequantize()

    E = take("token_embd.weight", (config.vocab_size, d))
    q_order = unpermute_gguf_rows(config.n_heads, dh)
    k_order = unpermute_gguf_rows(config.n_kv_heads, dh)
    layers = []
    for i in range(config.n_layers):
        m = {key: take(f"blk.{i}.{gg}.weight", shapes[key]) for key, gg in LAYER_TENSORS.items()}
        m["W_Q"], m["W_K"] = m["W_Q"].permute_rows(q_order), m["W_K"].permute_rows(k_order)
        layers.append(
            StoredLayer(**m, g_attn=gain(f"blk.{i}.attn_norm.weight"),
                        g_ffn=gain(f"blk.{i}.ffn_norm.weight"))
        )  # fmt: skip
    weights = ModelWeights(E=E, layers=tuple(layers), g_final=gain("output_norm.weight"))
    return config, tokenizer, weights


def check_finite(name, matrix):
    """Raise ValueError if the stored numbers hold NaN or infinity (a damaged file)."""
    parts = (matrix.values,) if isinstance(matrix, Dense) else (matrix.d, matrix.m)
    bad = sum(int(np.size(p) - np.isfinite(p).sum()) for p in parts if p is not None)
    if bad:
        raise ValueError(f"tensor {name} holds {bad} NaN or infinite numbers: the file is damaged")
