"""A tiny model of SmolLM2's architecture with random weights, written by the tests themselves
in both of the formats attnviz reads: a GGUF file as llama.cpp writes one (its tensor names,
the query and key rows permuted for its RoPE, some matrices in 4- and 8-bit blocks) and a
Hugging Face folder as the Hub serves SmolLM2-135M-Instruct (config.json, model.safetensors with
an embedding in bfloat16, tokenizer.json). The two hold the same numbers, so the model read
from either must compute the same."""

import json

import numpy as np

from attnviz.causal_lm.tokens import _byte_of_char, build_tokenizer

D_MODEL, N_HEADS, N_KV, D_FF, N_LAYERS = 64, 4, 2, 96, 2
MERGES = ["Ġ t", "h e", "Ġt he", "Ġ c", "a t", "Ġc at"]
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def vocabulary():
    """Three special tokens, the 256 byte characters, then one token per merge."""
    chars = sorted(_byte_of_char(), key=lambda ch: _byte_of_char()[ch])
    return SPECIAL + chars + [m.replace(" ", "") for m in MERGES]


def hf_config(vocab_size):
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_act": "silu",
        "hidden_size": D_MODEL,
        "intermediate_size": D_FF,
        "num_attention_heads": N_HEADS,
        "num_key_value_heads": N_KV,
        "num_hidden_layers": N_LAYERS,
        "head_dim": D_MODEL // N_HEADS,
        "max_position_embeddings": 256,
        "rms_norm_eps": 1e-5,
        "rope_theta": 100000.0,
        "rope_scaling": None,
        "tie_word_embeddings": True,
        "vocab_size": vocab_size,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "torch_dtype": "bfloat16",
    }


def to_bfloat16(x):
    """float32 rounded to the nearest bfloat16 (ties to even), as float32 and as its 16 bits."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return (rounded.astype(np.uint32) << 16).view(np.float32), rounded


def random_weights(seed=0):
    """HF-named float32 tensors (the embedding already bfloat16-exact), quantised matrices
    replaced by their exact dequantised values, plus {name: quantised blocks} for the GGUF."""
    import gguf

    rng = np.random.default_rng(seed)
    vocab = len(vocabulary())
    dh = D_MODEL // N_HEADS

    def normal(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    E, _ = to_bfloat16(normal(vocab, D_MODEL, scale=1.0))
    hf = {"model.embed_tokens.weight": E, "model.norm.weight": 1 + normal(D_MODEL, scale=0.1)}
    blocks = {}
    for i in range(N_LAYERS):
        p = f"model.layers.{i}"
        hf[f"{p}.self_attn.q_proj.weight"] = normal(N_HEADS * dh, D_MODEL)
        hf[f"{p}.self_attn.k_proj.weight"] = normal(N_KV * dh, D_MODEL)
        hf[f"{p}.self_attn.v_proj.weight"] = normal(N_KV * dh, D_MODEL)
        hf[f"{p}.self_attn.o_proj.weight"] = normal(D_MODEL, N_HEADS * dh)
        for name, shape, qtype in (
            ("gate_proj", (D_FF, D_MODEL), gguf.GGMLQuantizationType.Q4_1),
            ("up_proj", (D_FF, D_MODEL), gguf.GGMLQuantizationType.Q8_0),
            ("down_proj", (D_MODEL, D_FF), gguf.GGMLQuantizationType.Q4_1),
        ):
            raw = gguf.quants.quantize(normal(*shape), qtype)
            blocks[f"{p}.mlp.{name}.weight"] = (raw, qtype)
            hf[f"{p}.mlp.{name}.weight"] = gguf.quants.dequantize(raw, qtype).reshape(shape)
        hf[f"{p}.input_layernorm.weight"] = 1 + normal(D_MODEL, scale=0.1)
        hf[f"{p}.post_attention_layernorm.weight"] = 1 + normal(D_MODEL, scale=0.1)
    return hf, blocks


def write_safetensors(path, tensors, bfloat16=()):
    """A safetensors file by hand: 8 bytes of header length, the JSON header, the numbers."""
    header, chunks, offset = {}, [], 0
    for name, value in tensors.items():
        if name in bfloat16:
            data, kind = to_bfloat16(value)[1].tobytes(), "BF16"
        else:
            data, kind = np.ascontiguousarray(value, dtype="<f4").tobytes(), "F32"
        header[name] = {
            "dtype": kind,
            "shape": list(value.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(len(text).to_bytes(8, "little") + text + b"".join(chunks))


def write_hf_folder(folder, seed=0):
    """config.json, model.safetensors (embedding in BF16) and tokenizer.json in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    tokens = vocabulary()
    hf, _ = random_weights(seed)
    (folder / "config.json").write_text(json.dumps(hf_config(len(tokens))))
    write_safetensors(folder / "model.safetensors", hf, bfloat16={"model.embed_tokens.weight"})
    build_tokenizer(tokens, MERGES, range(len(SPECIAL))).save(str(folder / "tokenizer.json"))
    return folder


def permute(w, n_head):
    """llama.cpp's convert_hf_to_gguf permutation of query/key rows for GGML's RoPE."""
    return (
        w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
        .swapaxes(1, 2)
        .reshape(w.shape)
    )


GGUF_NAMES = {
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
    "input_layernorm": "attn_norm",
    "post_attention_layernorm": "ffn_norm",
}


def write_gguf(path, seed=0):
    """The same model as ``write_hf_folder(seed)`` as a GGUF file, written with ``gguf``."""
    import gguf

    tokens = vocabulary()
    hf, blocks = random_weights(seed)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(N_LAYERS)
    writer.add_context_length(256)
    writer.add_embedding_length(D_MODEL)
    writer.add_feed_forward_length(D_FF)
    writer.add_head_count(N_HEADS)
    writer.add_head_count_kv(N_KV)
    writer.add_rope_freq_base(100000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))
    writer.add_rope_dimension_count(D_MODEL // N_HEADS)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(tokens)
    writer.add_token_merges(MERGES)
    writer.add_token_types([3] * len(SPECIAL) + [1] * (len(tokens) - len(SPECIAL)))
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_tensor("token_embd.weight", hf["model.embed_tokens.weight"])
    writer.add_tensor("output_norm.weight", hf["model.norm.weight"])
    for name, value in hf.items():
        if not name.startswith("model.layers."):
            continue
        _, _, i, *rest = name.split(".")
        part = ".".join(rest[:-1])
        target = f"blk.{i}.{GGUF_NAMES[part]}.weight"
        if name in blocks:
            raw, qtype = blocks[name]
            writer.add_tensor(target, raw, raw_shape=raw.shape, raw_dtype=qtype)
            continue
        if part == "self_attn.q_proj":
            value = permute(value, N_HEADS)
        elif part == "self_attn.k_proj":
            value = permute(value, N_KV)
        writer.add_tensor(target, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
