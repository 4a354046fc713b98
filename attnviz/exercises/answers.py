"""A typed answer: read as a number (never an exception), then checked within its tolerance.

``read_answer(text)`` returns a ``Reading``: the number, or None with a message that says what
to type instead; "1,5" is read as 1.5 (a decimal comma) and the note says so, "1,500" is
refused (1.5 or 1500?). ``check(expected, tolerance, text)`` returns a ``Verdict``:
"empty", "unreadable", "right" or "wrong", with the sentence the student reads.
"""

import math
import re
from dataclasses import dataclass

from attnviz.exercises.notation import shown
from attnviz.limits import MAX_ANSWER_CHARS, MAX_ANSWER_MAGNITUDE


@dataclass(frozen=True)
class Tolerance:
    """How far an answer may be from the expected value: within ``absolute`` or within
    ``relative`` (a fraction) of it, whichever is wider; both 0 means exactly."""

    absolute: float = 0.0
    relative: float = 0.0

    def allows(self, value, expected):
        room = max(self.absolute, self.relative * abs(expected))
        return abs(value - expected) <= room + 1e-12

    def of(self, expected):
        """'within ±0.01 of 1.5', 'within 2 % of 0.2865', 'exactly 3' (``expected`` a number,
        or words: 'within ±0.01 of the answer', 'exactly the answer')."""
        what = expected if isinstance(expected, str) else shown(expected, 6)
        if not (self.absolute or self.relative):
            return f"exactly {what}"
        return f"within {self.describe().removeprefix('within ')} of {what}"

    def describe(self):
        """'±0.01', 'within 2 %', 'exactly' (what the page and the sheet print)."""
        if self.relative and self.absolute:
            return f"±{shown(self.absolute)} or {shown(self.relative * 100)} %"
        if self.relative:
            return f"within {shown(self.relative * 100)} %"
        if self.absolute:
            return f"±{shown(self.absolute)}"
        return "exactly"


@dataclass(frozen=True)
class Reading:
    """What a typed answer says: ``value`` (None if no number could be read), ``message``
    (why not), ``note`` (how it was read, when it was not written as a plain number)."""

    value: float | None
    message: str = ""
    note: str = ""


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_COMMA_DECIMAL = re.compile(r"([+-]?\d*),(\d+)")
_EXPRESSION = re.compile(r"e\s*(\^|\*\*)|exp\s*\(|sqrt|√|[()]|\d\s*[*×·^]\s*[\d.(]", re.I)
_MINUSES = str.maketrans({"−": "-", "–": "-", "—": "-", "\u00a0": " ", "\u202f": " "})


def _plain(text):
    """A plain decimal number as float, or None (no "inf", "nan" or "1_000" as Python allows)."""
    return float(text) if _NUMBER.fullmatch(text) else None


def read_answer(text):
    """The number typed in ``text``, or why there is none (a Reading)."""
    raw = "" if text is None else str(text)
    if len(raw) > MAX_ANSWER_CHARS:
        return Reading(
            None,
            f"That is {len(raw)} characters: an answer is one number, at most "
            f"{MAX_ANSWER_CHARS} characters long.",
        )
    typed = raw.translate(_MINUSES).strip()
    typed = re.sub(r"^([+-])\s+", r"\1", typed)  # "- 0.5" is -0.5
    if not typed:
        return Reading(None, "Type a number, such as 0.25 or -1.5.")
    value, note = _plain(typed), ""
    if value is None:
        value, note, message = _decimal_comma(typed)
        if message:
            return Reading(None, message)
    if value is None:
        value, note = _fraction(typed)
    if value is None:
        return Reading(None, _why_not(typed))
    if not math.isfinite(value) or abs(value) > MAX_ANSWER_MAGNITUDE:
        return Reading(
            None,
            f"{_quote(typed)} is far larger than any answer here (each is within "
            f"±{MAX_ANSWER_MAGNITUDE:,}): check the decimal point.",
        )
    return Reading(value, note=note)


def _decimal_comma(typed):
    """(value, note, message) for a number written with a comma."""
    found = _COMMA_DECIMAL.fullmatch(typed)
    if not found:
        if typed.count(",") > 1 or (typed.count(",") == 1 and "." in typed):
            return (
                None,
                "",
                (
                    f"{_quote(typed)} is not one number: write a single number with a decimal "
                    "point, such as 1.5 (no thousands separators)."
                ),
            )
        return None, "", ""
    whole, decimals = found.groups()
    if len(decimals) == 3 and whole.lstrip("+-") not in ("", "0"):
        return (
            None,
            "",
            (
                f"{_quote(typed)} could be {whole}.{decimals} or {whole}{decimals}: write it with "
                "a decimal point (and no thousands separator)."
            ),
        )
    point = f"{whole}.{decimals}"
    value = _plain(point if whole.lstrip("+-") else point.replace(".", "0.", 1))
    return value, f"Read {_quote(typed)} as {shown(value, 12)} (a decimal comma).", ""


def _fraction(typed):
    """(value, note) for a/b with plain numbers a and b, b not 0; else (None, "")."""
    parts = [p.strip() for p in typed.split("/")]
    if len(parts) != 2:
        return None, ""
    top, bottom = _plain(parts[0]), _plain(parts[1])
    if top is None or bottom is None or bottom == 0:
        return None, ""
    value = top / bottom
    return value, f"Read {_quote(typed)} as {shown(value, 6)}."


def _why_not(typed):
    if "/" in typed and re.fullmatch(r"[+-]?[\d.]+\s*/\s*[+-]?0*\.?0*", typed):
        return f"{_quote(typed)} divides by zero: type the number itself."
    if "%" in typed:
        return f"{_quote(typed)} is a percentage: type it as a decimal (25 % is 0.25)."
    if _EXPRESSION.search(typed):
        return (
            f"{_quote(typed)} is a formula, not a number: work out its value (a calculator's "
            "eˣ key gives e to a power) and type that, such as 0.3679."
        )
    if typed.lower().lstrip("+-") in ("inf", "infinity", "nan", "∞"):
        return f"{_quote(typed)} is not a finite number: every answer here is an ordinary number."
    return f"{_quote(typed)} is not a number: type digits, such as -0.25 or 1.5."


def _quote(typed, chars=20):
    cut = typed[:chars] + ("…" if len(typed) > chars else "")
    return f"“{cut}”"


@dataclass(frozen=True)
class Verdict:
    """``state``: "empty", "unreadable", "right" or "wrong"; ``message``: what the student reads;
    ``note``: how the text was read, when it was not a plain number."""

    state: str
    message: str
    note: str = ""

    @property
    def right(self):
        return self.state == "right"


def check(expected, tolerance, text):
    """Whether ``text`` is ``expected`` within ``tolerance`` (a Verdict, never an exception)."""
    if text is None or not str(text).strip():
        return Verdict("empty", "")
    reading = read_answer(text)
    if reading.value is None:
        return Verdict("unreadable", reading.message)
    if tolerance.allows(reading.value, expected):
        return Verdict(
            "right",
            f"Right: {shown(reading.value, 6)} is {tolerance.of(expected)}.",
            reading.note,
        )
    return Verdict(
        "wrong",
        f"Not yet: {shown(reading.value, 6)} is not {tolerance.of('the answer')}. Check your "
        "sums, or take a hint.",
        reading.note,
    )
