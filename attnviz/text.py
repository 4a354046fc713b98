"""How a token is written on screen: its invisible and bidi control characters spelled out.

Shared by the inputs (token labels), the charts (axis labels, hover text), the link readers
(a quoted value) and the ui (Markdown): one rule for every place a typed text is shown.
"""

import unicodedata

# Characters that change how the text around them is laid out or that take no room: the bidi
# controls (U+202E "right-to-left override" would mirror the page's own text after a token),
# zero-width spaces and joiners at word edges, the byte-order mark. Shown as <U+XXXX> instead.
_HIDDEN = {c: f"⟨U+{c:04X}⟩" for c in (
    0x061C, 0x200B, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
    0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF,
)}  # fmt: skip


def visible(text):
    """``text`` with its bidi controls, zero-width spaces and control characters written out as
    ``⟨U+XXXX⟩``, so a token can neither vanish nor reorder the text shown around it."""
    text = str(text)
    if text.isprintable() and not any(ord(c) in _HIDDEN for c in text):
        return text
    return "".join(
        _HIDDEN.get(ord(c)) or (f"⟨U+{ord(c):04X}⟩" if unicodedata.category(c) == "Cc" else c)
        for c in text
    )


def visible_all(texts):
    """[``visible(text)``] for every text of ``texts``: one call for a chart's labels."""
    return [visible(text) for text in texts]
