"""A deck's Classroom slide that asks a sketch: ``question=sketch&query=<token>``, with the
mask, scaling or temperature of its settings choosing what is asked (classroom.sketch's
variants). No Streamlit.
"""

from attnviz.classroom.sketch import COLD_T, VARIANTS
from attnviz.links.readers import quoted

SLIDE_KIND = "sketch"  # a deck slide's question=sketch&query=<token>


def slide_variant(settings):
    """(the variant a deck slide's settings ask, warnings): the causal mask -> "causal",
    T = COLD_T -> "cold", scaling off -> "unscaled" (at d_k = WIDE_D_K), none -> "plain". A
    sketch asks one change at a time: with more, the first of these is asked, and said."""
    asked = []
    if settings.mask == "causal":
        asked.append("causal")
    if settings.temperature == COLD_T:
        asked.append("cold")
    if not settings.scale:
        asked.append("unscaled")
    warnings = []
    if settings.temperature not in (1.0, COLD_T):
        warnings.append(
            f"A sketch is asked at T = 1 or T = {COLD_T:g}, not T = {settings.temperature:g}: "
            "the slide asks it at T = 1."
        )
    if len(asked) > 1:
        warnings.append(
            f"A sketch asks one change at a time ({', '.join(VARIANTS[v] for v in asked)}): "
            f"the slide asks {VARIANTS[asked[0]]}."
        )
    return (asked[0] if asked else "plain"), warnings


def slide_query_index(labels, text):
    """(the query's index among the example's token ``labels``, or None; warnings) from a
    slide's ``query=``: a label as the page shows it ("the (1)"), the first token written so
    ("the"), or its position from 0."""
    text = str(text).strip()
    if text in labels:
        return labels.index(text), []
    plain = [label.rsplit(" (", 1)[0] for label in labels]  # "the (1)" -> "the"
    if text in plain:
        return plain.index(text), []
    if text.isdigit() and int(text) < len(labels):
        return int(text), []
    tokens = ", ".join(f"`{quoted(label)}`" for label in labels)
    return None, [
        f"`query={quoted(text)}` in the slide is not a token of its example ({tokens}): the "
        "slide asks no sketch."
    ]
