"""Your own numbers' numbers, kept for every visitor per ``steps_key`` (the matrices' texts as
typed, and the sidebar's mask, scaling and temperature): the result and an edit's Spread. No
Streamlit.
"""

from attnviz.core import self_attention
from attnviz.files.own_numbers import (
    NAMES,
    parse_matrix,
)
from attnviz.inputs import generated_tokens, token_labels, tokenize
from attnviz.lessons.spread import spread_of_edit
from attnviz.links.own_numbers import FIELDS
from attnviz.masking import causal_mask
from attnviz.serve.store import kept


def steps_key(texts, settings):
    """The small key the steps are cached under: the matrices' and labels' texts as typed, and
    the sidebar's mask, scaling and temperature."""
    return (
        tuple((field, texts[field]) for field in FIELDS),
        settings.mask,
        settings.scale,
        settings.temperature,
    )


def _read(texts):
    """(matrices, tokens) from ``texts`` that ``matrices`` has accepted, as it reads them."""
    found = {name: parse_matrix(name, texts[name]) for name in NAMES}
    n = found["X"].shape[0]
    tokens = tokenize(texts["labels"])
    return found, tokens if len(tokens) == n else generated_tokens(n)


@kept(entries=16)
def own_result(key):
    """(AttentionResult, row labels) of ``steps_key``'s matrices, with its mask, scaling and
    temperature, once for every session. Raises AttentionInputError when a step overflows."""
    texts, mask, scale, temperature = key
    found, tokens = _read(dict(texts))
    n = found["X"].shape[0]
    result = self_attention(
        found["X"],
        found["W_Q"],
        found["W_K"],
        found["W_V"],
        mask=causal_mask(n) if mask == "causal" else None,
        scale=scale,
        temperature=temperature,
    )
    return result, token_labels(tokens)  # unique row labels: "a (1)", "b", "a (2)"


@kept(entries=16)
def own_spread(key, edit):
    """The Spread of ``edit`` on ``own_result(key)``, once for every session."""
    result, labels = own_result(key)
    return spread_of_edit(result, edit, labels)


def unedited(key):
    """The AttentionResult of ``key`` without an edit (a Lookup's function)."""
    return own_result(key)[0]


def own_steps(key, edit):
    """(result, labels, found) the steps draw: ``key``'s result with ``edit`` (an Edit, or
    None) applied, its labels and the edit's Spread or None (a Lookup's function)."""
    result, labels = own_result(key)
    found = None if edit is None else own_spread(key, edit)
    return (result if found is None else found.after), labels, found
