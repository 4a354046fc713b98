"""The shared settings' link: the sidebar's parameters (``tokens``, ``n``, ``d_model``, ``d_k``,
``d_v``, ``seed``, ``embedding``, ``positions``, ``mask``, ``scale``, ``temperature``) and the
display's ``present``, read with the shared readers and written back. No Streamlit.
"""

import difflib
from dataclasses import dataclass, replace

from attnviz.limits import (
    MAX_D_K,
    MAX_D_MODEL,
    MAX_D_V,
    MAX_SEED,
    MAX_TEMPERATURE,
    MAX_TEXT_CHARS,
    MAX_TOKENS,
    MIN_TEMPERATURE,
)
from attnviz.links.readers import (
    quoted,
    raw_value,
    read_choice,
    read_float,
    read_int,
    read_text,
    short_float,
)
from attnviz.settings import MASKS, Settings, shown_temperature


@dataclass(frozen=True)
class Number:
    """A shared setting that is a number: its range (what the link reads, what the sidebar's
    box allows), the box's label and help."""

    low: float
    high: float
    label: str
    help: str


# Field (and URL) name -> Number: the one table of the numbers the sidebar draws and
# ``from_query`` reads; the whole-number ones first.
NUMBERS = {
    "n": Number(1, MAX_TOKENS, "Number of tokens n", f"1 to {MAX_TOKENS}."),
    "d_model": Number(1, MAX_D_MODEL, "d_model", f"Embedding width, 1 to {MAX_D_MODEL}."),
    "d_k": Number(1, MAX_D_K, "d_k", f"Query/key width, 1 to {MAX_D_K}."),
    "d_v": Number(1, MAX_D_V, "d_v", f"Value width, 1 to {MAX_D_V}."),
    "seed": Number(
        0,
        MAX_SEED,
        "Seed",
        "Decides the random, untrained embeddings and weights. Same seed, same numbers.",
    ),
    "temperature": Number(
        MIN_TEMPERATURE,
        MAX_TEMPERATURE,
        "Softmax temperature T (a teaching knob)",
        f"A = softmax(S' / T), {MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g}. Standard attention "
        "has no such knob (T = 1): it shows what sharper or flatter rows do. The temperature of "
        "a chatbot acts on its output softmax over the next token, not here.",
    ),
}
# URL name -> (lowest, highest) for the whole-number settings.
INT_RANGES = {name: (s.low, s.high) for name, s in NUMBERS.items() if name != "temperature"}
_ON_OFF = {"on": True, "off": False}
# URL name -> {text in the link: value} for the settings chosen from a list; both spellings
# of one-hot are read (the link writes "onehot", the sidebar shows "one-hot")
CHOICES = {
    "mask": {m: m for m in MASKS},
    "embedding": {"random": "random", "onehot": "one-hot", "one-hot": "one-hot"},
    "scale": _ON_OFF,
    "positions": _ON_OFF,
}
KNOWN_NAMES = (*INT_RANGES, "tokens", "temperature", *CHOICES)
MAX_NAMED_UNKNOWN = 5  # unknown names quoted in the one warning about them
STREAMLIT_QUERY_NAMES = ("embed", "embed_options")  # Streamlit's own, never ours
# How the page is shown, not what it computes (attnviz/ui/sidebar.py reads them): projector mode,
# and the step page's one step in it
DISPLAY_QUERY_NAMES = ("present", "step", "palette")


def settings_query(settings):
    """``settings`` in its query-string form: {name: str}, the names listed in the README."""
    query = {"n": str(settings.n)} if settings.generated else {"tokens": settings.text}
    query.update(
        d_model=str(settings.d_model),
        d_k=str(settings.d_k),
        d_v=str(settings.d_v),
        seed=str(settings.seed),
        embedding=settings.embedding.replace("-", ""),
        positions="on" if settings.positions else "off",
        mask=settings.mask,
        scale="on" if settings.scale else "off",
        temperature=short_float(settings.temperature),
    )
    return query


def from_query(query):
    """Settings from a query-string mapping, and the warnings about values it had to change.

    Unknown names are ignored (Streamlit adds ``embed``, shared links add ``utm_source``), with
    a warning when one looks like a misspelt setting (``d_K``, ``token``). A value that is not
    understood keeps the default, a value out of range is clamped to the nearest allowed one;
    a repeated name takes its last value. Each says so. Never raises for any mapping of strings.
    """
    defaults = Settings()
    values, warnings = {}, []
    for name, (low, high) in INT_RANGES.items():
        if name in query:
            default = getattr(defaults, name)
            number, said = read_int(query, name, low=low, high=high, default=default)
            warnings += said
            if name != "n" or _is_whole(raw_value(query, "n")[0]):  # junk n: text tokens stay
                values[name] = number
    if "n" in values:
        values["generated"] = True
    if "tokens" in query:
        values["text"], said = read_text(query, "tokens", max_chars=MAX_TEXT_CHARS)
        warnings += said
        if values.pop("generated", False):
            warnings.append("the link gives both `tokens` and `n`: using the `tokens` text.")
    if "temperature" in query:
        t, said = read_float(
            query,
            "temperature",
            low=NUMBERS["temperature"].low,
            high=NUMBERS["temperature"].high,
            default=defaults.temperature,
        )
        raw, _ = raw_value(query, "temperature")
        if shown_temperature(t) != t:
            said.append(
                f"`temperature={quoted(raw.strip())}` in the link has more digits than the "
                f"sidebar shows: using {shown_temperature(t):g}."
            )
        warnings += said
        values["temperature"] = shown_temperature(t)
    for name, allowed in CHOICES.items():
        if name in query:
            default = getattr(defaults, name)
            values[name], said = read_choice(query, name, allowed, default)
            warnings += said
    warnings += _misspelt_names(query, KNOWN_NAMES)
    return replace(defaults, **values), warnings


def _is_whole(text):
    try:
        int(text.strip())
    except ValueError:
        return False
    return True


def _misspelt_names(query, known):
    """Warnings for the names of ``query`` that are not in ``known`` but close to one of them:
    one each for a few, one summary for more (a link with 100 odd names warns once)."""
    close = []
    for name in query:
        if name in known or name in STREAMLIT_QUERY_NAMES or name in DISPLAY_QUERY_NAMES:
            continue
        match = difflib.get_close_matches(str(name).lower(), known, n=1, cutoff=0.75)
        if match:
            close.append((name, match[0]))
    if len(close) > MAX_NAMED_UNKNOWN:
        named = ", ".join(f"`{quoted(name)}`" for name, _ in close[:MAX_NAMED_UNKNOWN])
        return [
            f"{len(close)} names in the link look like misspelt settings and were ignored: "
            f"{named} and {len(close) - MAX_NAMED_UNKNOWN} more."
        ]
    return [
        f"`{quoted(name)}` in the link is not a setting: ignored (did you mean `{meant}`?)."
        for name, meant in close
    ]


def read_present(query):
    """(projector mode on?, warnings) from the link's ``present`` (on or off; default off)."""
    return read_choice(query, "present", _ON_OFF, False)


# palette= in the link -> the palette's name (charts.finish.PALETTES)
PALETTE_LINK = {"standard": "standard", "colourblind": "colour-blind safe"}


def read_palette(query):
    """(the palette's name, warnings) from the link's ``palette`` (standard or colourblind)."""
    return read_choice(query, "palette", PALETTE_LINK, "standard")
