r"""The LaTeX of the course's formulas as typst math, for the cheat sheet (no Streamlit).

The app writes its formulas in LaTeX for KaTeX (``lessons.summary``); typst has its own math
syntax. ``to_typst`` translates the small part of LaTeX those formulas use, and refuses the
rest (ValueError), so that nothing unknown reaches typst:

    \frac{a}{b} -> (a)/(b)      \sqrt{a} -> sqrt(a)      \mathrm{x} -> op("x")  \text{x} -> "x"
    _{ij} -> _(i j)             ^T -> ^T                 \cdot \times \sum \quad \in \infty
    QK^T -> Q K^T               (one letter is one symbol, as in LaTeX; typst would read "QK"
                                 as a name)

Words inside \mathrm and \text become typst strings, escaped like any text.
"""

import re

_SYMBOLS = {
    "cdot": "dot",
    "times": "times",
    "sum": "sum",
    "quad": "quad",
    "qquad": "wide",
    "in": "in",
    "infty": "infinity",
    "to": "arrow",
    "approx": "approx",
    "le": "<=",
    "ge": ">=",
    "max": "max",
    "exp": "exp",
    "softmax": 'op("softmax")',
    ",": "thin",
    " ": "med",
    ";": "med",
}
_DROPPED = {"textstyle", "displaystyle", "left", "right"}
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([A-Za-z])|(\d+(?:\.\d+)?)|(\s+)|(.)", re.S)


def _string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Reader:
    def __init__(self, latex):
        self.tokens = [m for m in _TOKEN.finditer(latex) if not m.group(4)]
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self):
        token = self.peek()
        if token is None:
            raise ValueError("the formula ends too early")
        self.pos += 1
        return token

    def group(self):
        """The next {...} group (or single token) as typst."""
        token = self.peek()
        if token is not None and token.group(0) == "{":
            self.take()
            out = self.sequence(until="}")
            self.take()
            return out
        return self.atom()

    def raw_group(self, latex):
        """The text of the next {...} group, unparsed (for \\text and \\mathrm)."""
        token = self.take()
        if token.group(0) != "{":
            raise ValueError(f"expected {{ after a text command in {latex!r}")
        start = token.end()
        depth = 1
        while depth:
            token = self.take()
            depth += {"{": 1, "}": -1}.get(token.group(0), 0)
        return token.string[start : token.start()]

    def atom(self):
        token = self.take()
        command, letter, number, _, other = token.groups()
        if letter:
            return letter
        if number:
            return number
        if command is not None:
            return self.command(command, token.string)
        if other in "()[]=+-/<>,.|!'":
            return "\\/" if other == "/" else other
        raise ValueError(f"{other!r} is not a formula character this cheat sheet knows")

    def command(self, name, latex):
        if name == "frac":
            top, bottom = self.group(), self.group()
            return f"({top})/({bottom})"
        if name == "sqrt":
            return f"sqrt({self.group()})"
        if name in ("mathrm", "operatorname"):  # an upright name: softmax, Output
            return f"op({_string(self.raw_group(latex))})"
        if name == "text":
            return _string(self.raw_group(latex))
        if name == "mathbb":
            return {"R": "RR"}.get(self.raw_group(latex)) or self._unknown(name)
        if name in _DROPPED:
            return ""
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in ("{", "}"):
            return "\\" + name
        return self._unknown(name)

    @staticmethod
    def _unknown(name):
        raise ValueError(f"\\{name} is not a LaTeX command this cheat sheet translates")

    def sequence(self, until=None):
        parts = []
        while (token := self.peek()) is not None and token.group(0) != until:
            if token.group(0) in ("_", "^"):
                self.take()
                inner = self.group()
                if not parts:
                    parts.append('""')
                parts[-1] += f"{token.group(0)}({inner})"
            elif token.group(0) == "'" and parts:
                self.take()
                parts[-1] += "'"
            elif token.group(0) == "}":
                raise ValueError("unbalanced }")
            else:
                parts.append(self.atom())
        if until is not None and self.peek() is None:
            raise ValueError("unbalanced {")
        return " ".join(p for p in parts if p)


def to_typst(latex):
    """Typst math for ``latex`` (the formulas of lessons.summary); ValueError for anything
    outside the small part of LaTeX it knows."""
    return _Reader(latex).sequence()
