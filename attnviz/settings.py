"""The settings that decide every number on screen, their URL form, and the example they make.

Pure Python and numpy (no Streamlit): a ``Settings`` is read from the query string with
``from_query`` (bad values are clamped or ignored, each with a warning), written back with
``to_query`` and turned into numbers with ``compute``.
"""

import difflib
import math
from dataclasses import dataclass, fields, replace

import numpy as np

from attnviz.core import AttentionResult, self_attention
from attnviz.inputs import (
    generated_tokens,
    one_hot_embeddings,
    projection_weights,
    sinusoidal_positions,
    token_embeddings,
    token_labels,
    tokenize,
)
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
from attnviz.links.readers import last_value, quoted
from attnviz.masking import causal_mask

DEFAULT_TEXT = "the cat sat on the mat"
MASKS = ("none", "causal")
EMBEDDINGS = ("random", "one-hot")

# URL name -> (lowest, highest) for the whole-number settings.
INT_RANGES = {
    "n": (1, MAX_TOKENS),
    "d_model": (1, MAX_D_MODEL),
    "d_k": (1, MAX_D_K),
    "d_v": (1, MAX_D_V),
    "seed": (0, MAX_SEED),
}
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
DISPLAY_QUERY_NAMES = ("present", "step")


@dataclass(frozen=True)
class Settings:
    """What the user chose. ``generated`` switches the tokens from ``text`` to t1..tn."""

    text: str = DEFAULT_TEXT
    generated: bool = False
    n: int = 6
    d_model: int = 8
    d_k: int = 4
    d_v: int = 4
    seed: int = 0
    embedding: str = "random"
    positions: bool = False
    mask: str = "none"
    scale: bool = True
    temperature: float = 1.0

    @property
    def all_tokens(self):
        """Every token of the text (or t1..tn), before the MAX_TOKENS limit."""
        return generated_tokens(self.n) if self.generated else tokenize(self.text)

    @property
    def tokens(self):
        """The tokens used: the first MAX_TOKENS of ``all_tokens``."""
        return self.all_tokens[:MAX_TOKENS]

    def to_query(self):
        """The query-string form: {name: str}, the names listed in the README (shared links)."""
        query = {"n": str(self.n)} if self.generated else {"tokens": self.text}
        query.update(
            d_model=str(self.d_model),
            d_k=str(self.d_k),
            d_v=str(self.d_v),
            seed=str(self.seed),
            embedding=self.embedding.replace("-", ""),
            positions="on" if self.positions else "off",
            mask=self.mask,
            scale="on" if self.scale else "off",
            temperature=short_float(self.temperature),
        )
        return query


def shown_temperature(t):
    """``t`` to the 6 significant digits the sidebar shows (its format is "%g"), so the
    temperature used is exactly the one on screen: 0.0123456789 -> 0.0123457."""
    return float(f"{float(t):g}")


def short_float(x):
    """The shortest text that reads back as exactly ``x``: "1", "0.5", "0.123456789"."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def from_query(query):
    """Settings from a query-string mapping, and the warnings about values it had to change.

    Unknown names are ignored (Streamlit adds ``embed``, shared links add ``utm_source``), with
    a warning when one looks like a misspelt setting (``d_K``, ``token``). A value that is not
    understood keeps the default, a value out of range is clamped to the nearest allowed one.
    Never raises for any mapping of strings.
    """
    defaults = Settings()
    values = {}
    warnings = [
        f"`{quoted(name)}` appears {len(value)} times in the link: using the last, "
        f"`{quoted(value[-1])}`."
        for name, value in query.items()
        if name in KNOWN_NAMES and isinstance(value, (list, tuple)) and len(value) > 1
    ]
    for name, (low, high) in INT_RANGES.items():
        if name not in query:
            continue
        raw = last_value(query[name]).strip()
        try:
            number = int(raw)
        except ValueError:
            warnings.append(
                f"`{name}={quoted(raw)}` in the link is not a whole number: "
                f"using {getattr(defaults, name)}."
            )
            continue
        if not low <= number <= high:
            clamped = min(max(number, low), high)
            warnings.append(
                f"`{name}={quoted(raw)}` in the link is outside {low} to {high}: using {clamped}."
            )
            number = clamped
        values[name] = number
    if "n" in values:
        values["generated"] = True
    if "tokens" in query:
        text = last_value(query["tokens"])
        if len(text) > MAX_TEXT_CHARS:
            warnings.append(
                f"the text in the link is {len(text)} characters long (at most "
                f"{MAX_TEXT_CHARS}): it was cut to {MAX_TEXT_CHARS}."
            )
            text = text[:MAX_TEXT_CHARS]
        values["text"] = text
        if values.pop("generated", False):
            warnings.append("the link gives both `tokens` and `n`: using the `tokens` text.")
    if "temperature" in query:
        raw = last_value(query["temperature"]).strip()
        try:
            t = float(raw)
        except ValueError:
            t = math.nan
        if not math.isfinite(t):
            warnings.append(
                f"`temperature={quoted(raw)}` in the link is not a number: using "
                f"{defaults.temperature:g}."
            )
        else:
            if not MIN_TEMPERATURE <= t <= MAX_TEMPERATURE:
                clamped = min(max(t, MIN_TEMPERATURE), MAX_TEMPERATURE)
                warnings.append(
                    f"`temperature={quoted(raw)}` in the link is outside {MIN_TEMPERATURE:g} "
                    f"to {MAX_TEMPERATURE:g}: using {clamped:g}."
                )
                t = clamped
            elif shown_temperature(t) != t:
                warnings.append(
                    f"`temperature={quoted(raw)}` in the link has more digits than the sidebar "
                    f"shows: using {shown_temperature(t):g}."
                )
            values["temperature"] = shown_temperature(t)
    for name, allowed in CHOICES.items():
        if name not in query:
            continue
        raw = last_value(query[name]).strip().lower()
        if raw in allowed:
            values[name] = allowed[raw]
        else:
            shown = {v: k for k, v in allowed.items()}[getattr(defaults, name)]
            warnings.append(
                f"`{name}={quoted(raw)}` in the link is not one of {', '.join(allowed)}: "
                f"using {shown}."
            )
    warnings += _misspelt_names(query, KNOWN_NAMES)
    return replace(defaults, **values), warnings


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
    if "present" not in query:
        return False, []
    raw = last_value(query["present"]).strip().lower()
    if raw in _ON_OFF:
        return _ON_OFF[raw], []
    return False, [f"`present={quoted(raw)}` in the link is not one of on, off: using off."]


@dataclass(frozen=True, eq=False)
class Example:
    """The numbers that one Settings makes.

    Shapes: tokens, labels (n,); E (n, d_model) token embeddings; P (n, d_model) positional
    encodings or None; X = E + P (n, d_model); result holds every step of attention.
    """

    settings: Settings
    tokens: list
    labels: list
    E: np.ndarray
    P: np.ndarray | None
    result: AttentionResult


def embeddings(settings, tokens):
    """(E, P): token embeddings (n, d_model) and positional encodings (n, d_model) or None."""
    if settings.embedding == "one-hot":
        E = one_hot_embeddings(tokens, settings.d_model)
    else:
        E = token_embeddings(tokens, settings.d_model, settings.seed)
    P = sinusoidal_positions(len(tokens), settings.d_model) if settings.positions else None
    return E, P


def compute(settings):
    """Every number for ``settings``. Raises AttentionInputError (e.g. no tokens)."""
    tokens = settings.tokens
    E, P = embeddings(settings, tokens)
    X = E if P is None else E + P  # (n, d_model)
    W_Q, W_K, W_V = projection_weights(settings.d_model, settings.d_k, settings.d_v, settings.seed)
    mask = causal_mask(len(tokens)) if settings.mask == "causal" else None
    result = self_attention(
        X, W_Q, W_K, W_V, mask=mask, scale=settings.scale, temperature=settings.temperature
    )
    return Example(settings, tokens, token_labels(tokens), E, P, result)


SETTING_NAMES = tuple(f.name for f in fields(Settings))
