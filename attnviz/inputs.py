r"""The inputs of attention: tokens, their embeddings X, positions and projection weights.

Everything here is deterministic: the same settings give the same numbers, every time and on
every machine (numpy's PCG64 generator seeded from the settings and SHA-256 of the token text,
never Python's salted ``hash``).
"""

import hashlib
import unicodedata
from collections import Counter

import numpy as np

from attnviz.checks import AttentionInputError, check_positive_int
from attnviz.limits import MAX_D_K, MAX_D_MODEL, MAX_D_V, MAX_SEED, MAX_TOKENS
from attnviz.text import visible

_EMBEDDING_STREAM = 1  # separate random streams, so changing d_k never changes X
_WEIGHT_STREAM = 2


def is_blank(token):
    """True if ``token`` shows nothing: only format, control, combining or space characters."""
    return all(unicodedata.category(c)[0] in "CZ" or unicodedata.category(c) == "Mn" for c in token)


def tokenize(text):
    """Split ``text`` on whitespace. Tokens keep their case and punctuation exactly as typed."""
    if not isinstance(text, str):
        raise AttentionInputError(f"the text must be a string (got {type(text).__name__})")
    return text.split()


def generated_tokens(n):
    """["t1", "t2", ..., "tn"]: placeholder tokens for choosing n without typing a sentence."""
    n = check_positive_int("n", n, MAX_TOKENS, f"choose between 1 and {MAX_TOKENS} tokens")
    return [f"t{i}" for i in range(1, n + 1)]


def check_tokens(tokens, max_tokens=MAX_TOKENS):
    """Return ``tokens`` as a list of strings, or raise if there are none or too many."""
    tokens = list(tokens)
    if not tokens:
        raise AttentionInputError(
            "there are no tokens: type at least one word (tokens are separated by spaces)"
        )
    if len(tokens) > max_tokens:
        raise AttentionInputError(
            f"too many tokens: {len(tokens)} (at most {max_tokens}): shorten the text"
        )
    if not all(isinstance(t, str) and t and not t.isspace() for t in tokens):
        raise AttentionInputError("every token must be a non-empty string without only spaces")
    if all(is_blank(t) for t in tokens):
        raise AttentionInputError(
            "the text shows no word: it holds only invisible characters (zero-width or control "
            f"characters such as {visible(tokens[0])}): type at least one visible word"
        )
    return tokens


def token_labels(tokens):
    """Display labels, unique even when a token repeats: the, cat, ..., the -> "the (1)", "the (2)".

    Tokens that occur once keep their text unchanged. A number whose label would be the text of
    another token is skipped: ["the (1)", "the", "the"] -> "the (1)", "the (2)", "the (3)".
    Invisible characters are written out first (``visible``), so a label is seen as it is, and
    two tokens that look alike once written out are numbered like a repeat.
    """
    tokens = [visible(token) for token in tokens]
    counts = Counter(tokens)
    taken = {token for token in tokens if counts[token] == 1}
    seen = Counter()
    labels = []
    for token in tokens:
        if counts[token] == 1:
            labels.append(token)
            continue
        seen[token] += 1
        while f"{token} ({seen[token]})" in taken:
            seen[token] += 1
        labels.append(f"{token} ({seen[token]})")
    return labels


def _token_key(token):
    return int.from_bytes(hashlib.sha256(token.encode("utf-8")).digest()[:8], "little")


def check_dims(d_model=1, d_k=1, d_v=1):
    """Raise unless every dimension is a whole number between 1 and its limit."""
    check_positive_int(
        "d_model", d_model, MAX_D_MODEL, f"choose an embedding width of 1 to {MAX_D_MODEL}"
    )
    check_positive_int("d_k", d_k, MAX_D_K, f"choose a key dimension of 1 to {MAX_D_K}")
    check_positive_int("d_v", d_v, MAX_D_V, f"choose a value dimension of 1 to {MAX_D_V}")


def check_seed(seed):
    """Raise unless ``seed`` is a whole number between 0 and MAX_SEED."""
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or not 0 <= seed <= MAX_SEED
    ):
        raise AttentionInputError(
            f"seed must be a whole number from 0 to {MAX_SEED} (got {seed!r})"
        )
    return int(seed)


def token_embeddings(tokens, d_model, seed=0):
    """(n, d_model) embeddings with entries drawn from N(0, 1).

    The vector depends only on the token's text, ``d_model`` and ``seed``: two occurrences of
    "the" get identical rows (without positions, attention cannot tell them apart).
    """
    tokens = check_tokens(tokens)
    check_dims(d_model=d_model)
    seed = check_seed(seed)
    vectors = {}
    for token in dict.fromkeys(tokens):
        rng = np.random.default_rng([seed, _EMBEDDING_STREAM, _token_key(token)])
        vectors[token] = rng.standard_normal(d_model)
    return np.stack([vectors[token] for token in tokens])  # (n, d_model)


def one_hot_embeddings(tokens, d_model):
    """(n, d_model) one-hot rows: the k-th distinct token (in order of appearance) gets e_k.

    Needs d_model >= the number of distinct tokens.
    """
    tokens = check_tokens(tokens)
    check_dims(d_model=d_model)
    vocab = {token: k for k, token in enumerate(dict.fromkeys(tokens))}
    if len(vocab) > d_model:
        raise AttentionInputError(
            f"one-hot embeddings need d_model >= the number of distinct tokens ({len(vocab)}; "
            f"d_model is {d_model}): raise d_model to {len(vocab)} or use random embeddings"
        )
    X = np.zeros((len(tokens), d_model))
    X[np.arange(len(tokens)), [vocab[t] for t in tokens]] = 1.0
    return X


def sinusoidal_positions(n, d_model):
    r"""(n, d_model) sinusoidal positional encodings (Vaswani et al., 2017).

    .. math:: PE_{p, 2i} = \sin(p / 10000^{2i/d_{model}}), \;
              PE_{p, 2i+1} = \cos(p / 10000^{2i/d_{model}})
    """
    check_dims(d_model=d_model)
    position = np.arange(n)[:, None]  # (n, 1)
    i = np.arange(0, d_model, 2)  # (ceil(d_model / 2),) even column indices 2i
    angle = position / 10000 ** (i / d_model)  # (n, ceil(d_model / 2))
    PE = np.zeros((n, d_model))
    PE[:, 0::2] = np.sin(angle)
    PE[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return PE


def projection_weights(d_model, d_k, d_v, seed=0):
    """W_Q, W_K (d_model, d_k) and W_V (d_model, d_v), entries drawn from N(0, 1/d_model).

    With that scale (LeCun's fan-in initialisation; Xavier/Glorot's would be 2 / (fan_in +
    fan_out)) a unit-variance row of X gives q, k and v
    entries of variance about 1, so q . k has variance about d_k: the reason for sqrt(d_k).
    Each matrix has its own random stream, drawn column by column: changing d_v leaves W_Q and
    W_K alone, and raising d_k from 4 to 6 keeps the first 4 columns.
    """
    check_dims(d_model, d_k, d_v)
    seed = check_seed(seed)

    def draw(which, width):
        rng = np.random.default_rng([seed, _WEIGHT_STREAM, d_model, which])
        W = rng.standard_normal((width, d_model)).T / np.sqrt(d_model)  # (d_model, width)
        return np.ascontiguousarray(W)

    return draw(0, d_k), draw(1, d_k), draw(2, d_v)
