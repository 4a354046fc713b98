"""The chat model's weights as they are stored, and each layer's float32 matrices on demand.

Glossary (Hugging Face's names in brackets; every matrix is stored (out, in), as ``nn.Linear``):

    W_Q  (n_heads * d_head, d_model)   [self_attn.q_proj]   rows 64h .. 64h + 63: query head h
    W_K  (n_kv_heads * d_head, d_model) [self_attn.k_proj]  rows 64g .. 64g + 63: key head g
    W_V  (n_kv_heads * d_head, d_model) [self_attn.v_proj]
    W_O  (d_model, n_heads * d_head)    [self_attn.o_proj]
    W_gate, W_up (d_ff, d_model), W_down (d_model, d_ff)   [mlp.gate_proj, up_proj, down_proj]
    g_attn, g_ffn (d_model,)  the RMSNorms' gains [input_layernorm, post_attention_layernorm]
    E    (vocab, d_model)  the token embeddings [embed_tokens], also the output layer (tied)

A stored matrix is one of three kinds, each giving exactly the float32 numbers that the reference
(Hugging Face ``transformers``) computes from the same file:

* ``Dense``: float32 already.
* ``BlockQuantized``: GGUF's 4- and 8-bit blocks, 32 weights sharing a scale ``d`` (and, for
  Q4_1, an offset ``m``): ``w = d * q + m`` with q the stored small integer. Kept as one byte per
  weight plus the block scales, about a quarter of float32; ``dequantize`` repeats the ``gguf``
  package's own arithmetic (float32 ``(d * q) + m``), so the numbers are bit for bit the ones
  that ``gguf.dequantize`` gives the reference.
* ``BFloat16``: the Hub's safetensors file: bfloat16 is the top half of a float32, so
  widening is exact.

``ModelWeights.layer(i)`` widens one layer at a time to float32 (14 MB) for a forward pass, so
the whole model is never held in float32 (540 MB) unless asked for (``dense=True``).
"""

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True, eq=False)
class Dense:
    """A float32 matrix kept as it is."""

    values: np.ndarray  # (rows, cols) float32

    @property
    def shape(self):
        return self.values.shape

    @property
    def nbytes(self):
        return self.values.nbytes

    def rows(self, index):
        return self.values[index]

    def dequantize(self):
        return self.values

    def permute_rows(self, order):
        return Dense(np.ascontiguousarray(self.values[order]))


@dataclass(frozen=True, eq=False)
class BlockQuantized:
    """GGUF's Q4_1 / Q8_0 blocks: ``w[r, 32b + j] = d[r, b] * q[r, 32b + j] (+ m[r, b])``."""

    q: np.ndarray  # (rows, cols) uint8 (Q4_1: 0..15) or int8 (Q8_0: -127..127)
    d: np.ndarray  # (rows, cols / 32) float32 scales
    m: np.ndarray | None  # (rows, cols / 32) float32 offsets (Q4_1), None (Q8_0)

    BLOCK = 32

    @property
    def shape(self):
        return self.q.shape

    @property
    def nbytes(self):
        return self.q.nbytes + self.d.nbytes + (0 if self.m is None else self.m.nbytes)

    def _widen(self, q, d, m):
        rows, cols = q.shape
        blocks = q.reshape(rows, cols // self.BLOCK, self.BLOCK).astype(np.float32)
        w = d[..., None] * blocks  # as gguf: d * q, then + m, each rounded to float32
        if m is not None:
            w += m[..., None]
        return w.reshape(rows, cols)

    def rows(self, index):
        """Rows ``index`` in float32 (an embedding lookup widens only the tokens used)."""
        return self._widen(self.q[index], self.d[index], None if self.m is None else self.m[index])

    def dequantize(self):
        return self._widen(self.q, self.d, self.m)

    def permute_rows(self, order):
        m = None if self.m is None else np.ascontiguousarray(self.m[order])
        return BlockQuantized(
            np.ascontiguousarray(self.q[order]), np.ascontiguousarray(self.d[order]), m
        )

    @classmethod
    def from_gguf_blocks(cls, raw, shape, kind):
        """From GGUF's raw block bytes (rows, cols / 32 * bytes per block); ``kind`` Q4_1/Q8_0.

        Q4_1 block (20 bytes): d float16, m float16, 16 bytes of 4-bit q, the low nibbles being
        weights 0..15 and the high ones 16..31. Q8_0 block (34 bytes): d float16, 32 int8 q.
        """
        rows, cols = shape
        blocks = np.asarray(raw, dtype=np.uint8).reshape(rows, cols // cls.BLOCK, -1)
        d = blocks[..., 0:2].copy().view(np.float16)[..., 0].astype(np.float32)
        if kind == "Q4_1":
            m = blocks[..., 2:4].copy().view(np.float16)[..., 0].astype(np.float32)
            packed = blocks[..., 4:20]
            q = np.concatenate([packed & 0x0F, packed >> 4], axis=-1)  # weights 0..15, 16..31
            return cls(q.reshape(rows, cols), d, m)
        if kind == "Q8_0":
            q = blocks[..., 2:34].copy().view(np.int8)
            return cls(q.reshape(rows, cols), d, None)
        raise ValueError(f"block type {kind} is not supported (only Q4_1 and Q8_0)")


@dataclass(frozen=True, eq=False)
class BFloat16:
    """bfloat16 numbers kept as their 16 bits; widened exactly to float32."""

    bits: np.ndarray  # (rows, cols) uint16

    @property
    def shape(self):
        return self.bits.shape

    @property
    def nbytes(self):
        return self.bits.nbytes

    def rows(self, index):
        return (self.bits[index].astype(np.uint32) << 16).view(np.float32)

    def dequantize(self):
        return (self.bits.astype(np.uint32) << 16).view(np.float32)

    def permute_rows(self, order):
        return BFloat16(np.ascontiguousarray(self.bits[order]))


@dataclass(frozen=True, eq=False)
class LayerMatrices:
    """One block's weights in float32, (out, in) as stored; ``x @ W.T`` applies W."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    W_gate: np.ndarray
    W_up: np.ndarray
    W_down: np.ndarray
    g_attn: np.ndarray
    g_ffn: np.ndarray


MATRICES = ("W_Q", "W_K", "W_V", "W_O", "W_gate", "W_up", "W_down")


@dataclass(frozen=True, eq=False)
class StoredLayer:
    """One block's weights as stored (Dense, BlockQuantized or BFloat16; gains float32)."""

    W_Q: object
    W_K: object
    W_V: object
    W_O: object
    W_gate: object
    W_up: object
    W_down: object
    g_attn: np.ndarray
    g_ffn: np.ndarray

    def dequantize(self):
        """LayerMatrices in float32."""
        return LayerMatrices(
            **{name: getattr(self, name).dequantize() for name in MATRICES},
            g_attn=self.g_attn,
            g_ffn=self.g_ffn,
        )

    @property
    def nbytes(self):
        return sum(getattr(self, name).nbytes for name in MATRICES) + 2 * self.g_attn.nbytes


@dataclass(frozen=True, eq=False)
class ModelWeights:
    """Every weight: the embeddings E (vocab, d_model), the blocks, the final RMSNorm's gain."""

    E: object
    layers: tuple
    g_final: np.ndarray
    dense_layers: tuple | None = None  # LayerMatrices of every block when loaded dense=True

    def layer(self, i):
        """Block i's LayerMatrices in float32 (widened now unless the model was loaded dense)."""
        if self.dense_layers is not None:
            return self.dense_layers[i]
        return self.layers[i].dequantize()

    def embed(self, token_ids):
        """(n, d_model) float32 rows of E for ``token_ids`` (n,)."""
        return np.asarray(self.E.rows(np.asarray(token_ids)), dtype=np.float32)

    def unembed(self, x, chunk=8192):
        """(n, vocab) logits x E^T for x (n, d_model), E widened ``chunk`` rows at a time."""
        vocab = self.E.shape[0]
        logits = np.empty((x.shape[0], vocab), dtype=np.float32)
        if isinstance(self.E, Dense):
            return np.matmul(x, self.E.values.T, out=logits)
        for start in range(0, vocab, chunk):
            rows = self.E.rows(slice(start, start + chunk))  # (chunk, d_model) float32
            logits[:, start : start + rows.shape[0]] = x @ rows.T  # (n, d) @ (d, chunk)
        return logits

    @property
    def nbytes(self):
        """Bytes the weights hold in memory."""
        total = self.E.nbytes + self.g_final.nbytes + sum(w.nbytes for w in self.layers)
        if self.dense_layers is not None:
            total += sum(getattr(w, f.name).nbytes for w in self.dense_layers for f in fields(w))
        return total

    def densified(self):
        """The same weights with every block widened to float32 once (540 MB for SmolLM2)."""
        dense = tuple(w.dequantize() for w in self.layers)
        return ModelWeights(E=self.E, layers=self.layers, g_final=self.g_final, dense_layers=dense)


def unpermute_gguf_rows(n_heads, d_head):
    """The row order that undoes llama.cpp's permutation of W_Q / W_K rows for its RoPE.

    llama.cpp's converter reorders each head's 64 rows from Hugging Face's layout, where RoPE
    pairs dimension i with i + 32 ("rotate half"), to GGML's, where it pairs 2i with 2i + 1:
    ``w.reshape(n_heads, 2, d_head // 2, d_model).swapaxes(1, 2)``. The inverse, used here as
    ``transformers`` does when it reads a GGUF file, returns the rows to Hugging Face's order,
    so Q and K have the same columns as the reference's q_proj and k_proj.
    """
    order = np.arange(n_heads * d_head).reshape(n_heads, d_head // 2, 2)
    return order.swapaxes(1, 2).reshape(-1)
