"""Read a Hugging Face folder of the model (config.json, model.safetensors, tokenizer.json), as
the Hub serves HuggingFaceTB/SmolLM2-135M-Instruct: the same architecture, with Hugging Face's
tensor names and full-precision weights (bfloat16 there) instead of GGUF's 4-bit blocks.

The safetensors file is read here from its header: it is 8 bytes of header length, a JSON
header ``{name: {dtype, shape, data_offsets}}``, then the raw little-endian numbers.
``safetensors``' own numpy reader refuses bfloat16, which numpy has no type for; bfloat16 is the
top 16 bits of a float32, kept as such (``BFloat16``) and widened exactly.
"""

import json

import numpy as np

from attnviz.causal_lm.config import LlamaConfig
from attnviz.causal_lm.weights import BFloat16, Dense, ModelWeights, StoredLayer

FILES = ("config.json", "model.safetensors", "tokenizer.json")
LAYER_TENSORS = {
    "W_Q": "self_attn.q_proj",
    "W_K": "self_attn.k_proj",
    "W_V": "self_attn.v_proj",
    "W_O": "self_attn.o_proj",
    "W_gate": "mlp.gate_proj",
    "W_up": "mlp.up_proj",
    "W_down": "mlp.down_proj",
}
NUMPY_TYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def safetensors_arrays(path):
    """``{name: (dtype name, array)}`` of every tensor in the file, copied out of it."""
    with open(path, "rb") as file:
        length = int.from_bytes(file.read(8), "little")
        if not 0 < length < 100_000_000:
            raise ValueError("not a safetensors file (its header length makes no sense)")
        header = json.loads(file.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)  # each tensor copied out
    arrays = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        kind = info["dtype"]
        if kind not in NUMPY_TYPES:
            raise ValueError(f"tensor {name} is {kind}; only F32, F16 and BF16 are read")
        start, end = info["data_offsets"]
        little = np.dtype(NUMPY_TYPES[kind]).newbyteorder("<")
        values = np.asarray(data[start:end]).view(little).reshape(info["shape"])
        arrays[name] = (kind, values.astype(NUMPY_TYPES[kind]))  # a copy, native byte order
    return arrays


def stored(name, kind, values):
    if kind == "BF16":
        return BFloat16(np.ascontiguousarray(values))
    return Dense(np.ascontiguousarray(values, dtype=np.float32))


def read_folder(folder, progress=None):
    """(config, tokenizer, weights) from a folder holding FILES."""
    from tokenizers import Tokenizer

    path = folder / "config.json"
    config = LlamaConfig.from_hf(json.loads(path.read_text(encoding="utf-8")))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    tokenizer.encode_special_tokens = True  # typed "<|im_end|>" is text, as in read_gguf
    arrays = safetensors_arrays(folder / "model.safetensors")
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
    total, done = len(arrays), 0

    def take(name, shape):
        nonlocal done
        key = name if name in arrays else f"model.{name}"
        if key not in arrays:
            raise ValueError(f"tensor model.{name} is missing")
        kind, values = arrays.pop(key)
        if values.shape != shape:
            raise ValueError(f"tensor {key} has shape {values.shape}, expected {shape}")
        matrix = stored(key, kind, values)
        widened = matrix.dequantize()
        if not np.isfinite(widened).all():
            bad = int(widened.size - np.isfinite(widened).sum())
            raise ValueError(f"tensor {key} holds {bad} NaN or infinite numbers: a damaged file")
        done += 1
        if progress is not None:
            progress(done, total)
        return matrix

    E = take("embed_tokens.weight", (config.vocab_size, d))
    layers = []
    for i in range(config.n_layers):
        p = f"layers.{i}"
        m = {key: take(f"{p}.{name}.weight", shapes[key]) for key, name in LAYER_TENSORS.items()}
        layers.append(
            StoredLayer(
                **m,
                g_attn=take(f"{p}.input_layernorm.weight", (d,)).dequantize(),
                g_ffn=take(f"{p}.post_attention_layernorm.weight", (d,)).dequantize(),
            )
        )
    g_final = take("norm.weight", (d,)).dequantize()
    return config, tokenizer, ModelWeights(E=E, layers=tuple(layers), g_final=g_final)
