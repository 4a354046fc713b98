"""The shared readers of a link's parameters: one value each, never an exception.

Every reader takes ``query``, a mapping of name -> text (or a list of texts: Streamlit gives a
list for a parameter repeated in the link), and returns ``(value, warnings)``. A missing name
gives the default without a word; a repeated one takes the last value and says so; a value
that is not understood gives the default, and one out of range the nearest allowed value, each
with a warning that quotes what the link held (cut to ``QUOTED_CHARS``, written as plain text).
"""

import math

from attnviz.text import visible

QUOTED_CHARS = 40  # characters of a link's value quoted in a warning


def quoted(raw, chars=QUOTED_CHARS):
    """A value from the link for a warning's `code span`: cut to ``chars`` characters (with
    "…" when cut), backticks made quotes, line breaks spaces and invisible characters written
    out, so the warning renders as plain text whatever was typed."""
    text = str(raw)
    cut = text[:chars] + ("…" if len(text) > chars else "")
    return visible(" ".join(cut.replace("`", "'").split()))


def last_value(value):
    """A query value may come as a list (repeated parameter): take the last one."""
    if isinstance(value, (list, tuple)):
        return str(value[-1]) if value else ""
    return str(value)


def raw_value(query, name):
    """(the text of ``name`` in ``query`` or None when absent, warnings): the last of a
    repeated parameter, with a warning that says so."""
    if name not in query:
        return None, []
    value = query[name]
    warnings = []
    if isinstance(value, (list, tuple)) and len(value) > 1:
        warnings.append(
            f"`{quoted(name)}` appears {len(value)} times in the link: using the last, "
            f"`{quoted(value[-1])}`."
        )
    return last_value(value), warnings


def short_float(x):
    """The shortest text that reads back as exactly ``x``: "1", "0.5", "0.123456789"."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def _shown(value):
    return f"{value:g}" if isinstance(value, float) else str(value)


def _in_range(name, raw, number, low, high, warnings):
    """(``number``, or the nearest of ``low`` and ``high`` with a warning quoting ``raw``,
    warnings)."""
    if low <= number <= high:
        return number, warnings
    clamped = min(max(number, low), high)
    warnings.append(
        f"`{name}={quoted(raw)}` in the link is outside {_shown(low)} to {_shown(high)}: "
        f"using {_shown(clamped)}."
    )
    return clamped, warnings


def _whole(raw):
    try:
        return int(raw)
    except ValueError:
        return None


def _finite(raw):
    try:
        number = float(raw)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _read_number(query, name, parse, what, *, low, high, default):
    """(``parse`` of the link's text, clamped to ``low`` to ``high``, warnings); ``default``
    when absent or when ``parse`` gives None, with a warning that the text is not ``what``."""
    raw, warnings = raw_value(query, name)
    if raw is None:
        return default, warnings
    raw = raw.strip()
    number = parse(raw)
    if number is None:
        warnings.append(
            f"`{name}={quoted(raw)}` in the link is not {what}: using {_shown(default)}."
        )
        return default, warnings
    return _in_range(name, raw, number, low, high, warnings)


def read_int(query, name, *, low, high, default):
    """(a whole number from ``low`` to ``high``, warnings); ``default`` if absent or not a
    whole number, the nearest bound if outside the range."""
    return _read_number(query, name, _whole, "a whole number", low=low, high=high, default=default)


def read_float(query, name, *, low, high, default):
    """(a finite number from ``low`` to ``high``, warnings); ``default`` if absent or not a
    finite number (``nan``, ``inf``, ``abc``), the nearest bound if outside the range."""
    return _read_number(
        query, name, _finite, "a number", low=float(low), high=float(high), default=default
    )


def read_choice(query, name, choices, default):
    """(one of ``choices``, warnings). ``choices`` maps the text a link may hold (read without
    case or surrounding spaces) to the value; ``default`` is a value, used when the name is
    absent or its text is none of them."""
    raw, warnings = raw_value(query, name)
    if raw is None:
        return default, warnings
    text = raw.strip().lower()
    if text in choices:
        return choices[text], warnings
    shown = next((k for k, v in choices.items() if v == default), str(default))
    warnings.append(
        f"`{name}={quoted(text)}` in the link is not one of {', '.join(choices)}: using {shown}."
    )
    return default, warnings


def read_text(query, name, *, max_chars, default=""):
    """(the text, at most ``max_chars`` characters, warnings): a longer text is cut, and the
    warning says by how much."""
    raw, warnings = raw_value(query, name)
    if raw is None:
        return default, warnings
    if len(raw) > max_chars:
        warnings.append(
            f"`{name}` in the link is {len(raw)} characters long (at most {max_chars}): "
            f"it was cut to {max_chars}."
        )
        raw = raw[:max_chars]
    return raw, warnings
