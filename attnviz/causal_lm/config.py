"""The shape of a LLaMA-architecture model (SmolLM2-135M: 30 blocks, 9 query heads, 3 key/value
heads of 64, d_model 576, RoPE base 100,000), read from GGUF metadata or Hugging Face's
config.json; anything this code would compute wrongly is refused with the reason."""

from dataclasses import dataclass


@dataclass(frozen=True)
class LlamaConfig:
    vocab_size: int  # 49,152 byte-level BPE tokens
    d_model: int  # hidden_size, 576
    n_layers: int  # num_hidden_layers, 30
    n_heads: int  # num_attention_heads: query heads, 9
    n_kv_heads: int  # num_key_value_heads: key/value heads shared by the query heads, 3
    d_ff: int  # intermediate_size, 1536
    rope_base: float  # rope_theta, 100,000
    rms_eps: float  # rms_norm_eps
    max_positions: int  # context length the model was trained for, 8,192
    bos_id: int | None = None
    eos_id: int | None = None

    @property
    def d_head(self):
        """Each head's width, d_k = d_v = d_model / n_heads (64)."""
        return self.d_model // self.n_heads

    @property
    def group_size(self):
        """Query heads per key/value head (3): query head h reads key/value head h // 3."""
        return self.n_heads // self.n_kv_heads

    def group_of(self, head):
        """The key/value head that query head ``head`` uses (as transformers' repeat_kv)."""
        return head // self.group_size

    def check(self):
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model {self.d_model} is not a multiple of {self.n_heads} heads")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.n_heads} query heads do not share {self.n_kv_heads} key/value heads evenly"
            )
        if self.d_head % 2:
            raise ValueError(f"RoPE needs an even head width (got {self.d_head})")
        return self

    @classmethod
    def from_gguf(cls, meta):
        """From GGUF metadata ``{key: value}`` (``llama.*`` keys)."""
        arch = meta.get("general.architecture")
        if arch != "llama":
            raise ValueError(f"general.architecture is {arch!r}, but only 'llama' is supported")
        d_model = int(meta["llama.embedding_length"])
        n_heads = int(meta["llama.attention.head_count"])
        rope_dims = meta.get("llama.rope.dimension_count", d_model // n_heads)
        if int(rope_dims) != d_model // n_heads:
            raise ValueError("RoPE on part of each head is not supported")
        if "llama.rope.scaling.type" in meta:
            raise ValueError("RoPE scaling is not supported")
        tokens = meta.get("tokenizer.ggml.tokens")
        return cls(
            vocab_size=int(meta.get("llama.vocab_size", len(tokens or ()))),
            d_model=d_model,
            n_layers=int(meta["llama.block_count"]),
            n_heads=n_heads,
            n_kv_heads=int(meta.get("llama.attention.head_count_kv", n_heads)),
            d_ff=int(meta["llama.feed_forward_length"]),
            rope_base=float(meta.get("llama.rope.freq_base", 10000.0)),
            rms_eps=float(meta["llama.attention.layer_norm_rms_epsilon"]),
            max_positions=int(meta.get("llama.context_length", 2048)),
            bos_id=meta.get("tokenizer.ggml.bos_token_id"),
            eos_id=meta.get("tokenizer.ggml.eos_token_id"),
        ).check()

    @classmethod
    def from_hf(cls, raw):
        """From Hugging Face's config.json."""
        for key, wanted in (("model_type", "llama"), ("hidden_act", "silu")):
            if raw.get(key, wanted) != wanted:
                raise ValueError(f"{key} is {raw[key]!r}, but only {wanted!r} is supported")
        if raw.get("rope_scaling"):
            raise ValueError("RoPE scaling is not supported")
        if not raw.get("tie_word_embeddings", False):
            raise ValueError("only models whose output layer is the embedding (tied) are supported")
        if raw.get("attention_bias") or raw.get("mlp_bias"):
            raise ValueError("biases in attention or the MLP are not supported")
        rope = raw.get("rope_parameters") or {}
        n_heads = int(raw["num_attention_heads"])
        d_model = int(raw["hidden_size"])
        if int(raw.get("head_dim", d_model // n_heads)) != d_model // n_heads:
            raise ValueError("head_dim must be hidden_size / num_attention_heads")
        return cls(
            vocab_size=int(raw["vocab_size"]),
            d_model=d_model,
            n_layers=int(raw["num_hidden_layers"]),
            n_heads=n_heads,
            n_kv_heads=int(raw.get("num_key_value_heads", n_heads)),
            d_ff=int(raw["intermediate_size"]),
            rope_base=float(raw.get("rope_theta", rope.get("rope_theta", 10000.0))),
            rms_eps=float(raw.get("rms_norm_eps", 1e-6)),
            max_positions=int(raw.get("max_position_embeddings", 2048)),
            bos_id=raw.get("bos_token_id"),
            eos_id=raw.get("eos_token_id"),
        ).check()
