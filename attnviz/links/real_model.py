"""The Real model page's own link: the two sentences of "Two sentences, one word"
(``model_a``, ``model_b``). No Streamlit.
"""

from attnviz.limits import MAX_PAIR_CHARS
from attnviz.links.readers import raw_value

PAIR_PARAMS = ("model_a", "model_b")  # URL parameters: the two sentences
DEFAULT_PAIR = (
    "The animal didn't cross the street because it was too tired.",
    "The animal didn't cross the street because it was too wide.",
)


def pair_from_query(query):
    """((first, second), warnings) from a link's parameters (``{name: value or [values]}``).

    A missing value is the classic sentence; an empty one too, with a warning; one longer
    than MAX_PAIR_CHARS is cut there, with a warning; a repeated one takes the last, saying so.
    """
    sentences, warnings = [], []
    for number, (name, default) in enumerate(zip(PAIR_PARAMS, DEFAULT_PAIR, strict=True), 1):
        value, said = raw_value(query, name)
        warnings += said
        if value is None:
            sentences.append(default)
            continue
        if not value.strip():
            warnings.append(f"{name} (sentence {number}) is empty: the classic sentence is used.")
            value = default
        elif len(value) > MAX_PAIR_CHARS:
            warnings.append(
                f"{name} (sentence {number}) has {len(value)} characters: the first "
                f"{MAX_PAIR_CHARS} are used (the limit)."
            )
            value = value[:MAX_PAIR_CHARS]
        sentences.append(value)
    return tuple(sentences), warnings
