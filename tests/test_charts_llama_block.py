"""charts.llama_block: one decoder block in order, with the model's own sizes."""

from attnviz.causal_lm.config import LlamaConfig
from attnviz.charts.llama_block import block_figure


def test_the_block_reads_norm_attention_add_norm_mlp_add_in_order():
    fields = LlamaConfig.__dataclass_fields__
    values = dict(n_layers=30, n_heads=9, n_kv_heads=3, d_model=576, d_head=64, d_ff=1536)
    config = LlamaConfig(**{k: v for k, v in values.items() if k in fields},
                         **{k: 1 for k in fields if k not in values and k != "rope_base"},
                         **({"rope_base": 100000.0} if "rope_base" in fields else {}))  # fmt: skip
    fig = block_figure(config, text_px=20)
    boxes = [a.text for a in fig.layout.annotations if a.text and not a.showarrow]
    words = [b.split("<br>")[0] for b in boxes if not b.startswith("residual")]
    assert words == ["x", "RMSNorm", "attention", "+", "RMSNorm", "SwiGLU MLP", "+", "next block"]
    assert "9 query heads, 3 K/V" in boxes[2] and "576 → 1536 → 576" in boxes[5]
    assert sum(b.startswith("residual") for b in boxes) == 2  # two residual paths
    assert all(a.font.size >= 20 for a in fig.layout.annotations if a.text)
