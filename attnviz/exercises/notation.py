r"""Mathematics written once, shown twice: as LaTeX on the page (KaTeX) and as typst on paper.

A ``Math`` holds both forms of one formula. The builders below make every formula that an
exercise, its hints and its key use, from numbers and fixed symbols only: nothing a user typed
ever becomes a formula. Text beside a formula (a hint's words) is kept apart, as plain ``str``,
and escaped by whichever renderer shows it (``typst_text`` here, ``md_escape`` on the page).

    m = seq(sym("S", 1, 2), "=", num(3), "/", num(2))
    m.latex  ->  S_{1,2} = 3 / 2
    m.typst  ->  S_(1,2) = 3 \/ 2

Indices are written from 1, as on paper and in the course module (sum over j = 1 to n).
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Math:
    """One formula in both notations."""

    latex: str
    typst: str


def shown(x, places=4):
    """``x`` as a student writes it: at most ``places`` decimals, no trailing zeros, no "-0".

    1.0 -> "1", -0.5 -> "-0.5", 0.268941 -> "0.2689", 1e-9 -> "0"."""
    text = f"{float(x):.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def num(x, places=4, paren=False):
    """A number; ``paren``: in parentheses when negative (a factor of a product)."""
    text = shown(x, places)
    if paren and text.startswith("-"):
        return Math(f"({text})", f"({text})")
    return Math(text, text)


_OPS = {  # the operators a formula may use: latex, typst
    "=": ("=", "="),
    "≈": (r"\approx", "approx"),
    "+": ("+", "+"),
    "-": ("-", "-"),
    "·": (r"\cdot", "dot"),
    "×": (r"\times", "times"),
    "/": ("/", "\\/"),
    ",": (",\\quad", '"," quad'),  # between formulas: a comma as text (typst reads a bare
    # comma inside display(...) as the end of an argument)
    "(": ("(", "("),
    ")": (")", ")"),
    "∈": (r"\in", "in"),
    "-inf": (r"-\infty", "-infinity"),
}


def op(symbol):
    """One operator from ``_OPS`` ("=", "≈", "+", "·", "/", ...)."""
    latex, typst = _OPS[symbol]
    return Math(latex, typst)


def _piece(part):
    if isinstance(part, Math):
        return part
    if isinstance(part, str):
        return op(part)
    return num(part)


def seq(*parts):
    """Pieces side by side: Math, an operator's symbol (str) or a number."""
    pieces = [_piece(p) for p in parts]
    return Math(" ".join(p.latex for p in pieces), " ".join(p.typst for p in pieces))


def sym(letter, *indices, prime=False, bold=False):
    """A symbol with indices from 1: sym("S", 1, 2, prime=True) is S'_{1,2}.

    ``letter`` is one of the fixed names below (never user text)."""
    latex, typst = _LETTERS[letter]
    if prime:
        latex, typst = latex + "'", typst + "'"
    if indices:
        sub = ",".join(str(k) for k in indices)
        latex, typst = f"{latex}_{{{sub}}}", f"{typst}_({sub})"
    return Math(latex, typst)


_LETTERS = {
    "X": ("X", "X"),
    "Q": ("Q", "Q"),
    "K": ("K", "K"),
    "V": ("V", "V"),
    "S": ("S", "S"),
    "A": ("A", "A"),
    "O": (r"\mathrm{Output}", 'upright("Output")'),
    "q": ("q", "q"),
    "k": ("k", "k"),
    "v": ("v", "v"),
    "m": ("m", "m"),
    "W_Q": ("W_Q", "W_Q"),
    "W_K": ("W_K", "W_K"),
    "W_V": ("W_V", "W_V"),
    "d_k": ("d_k", "d_k"),
    "d_v": ("d_v", "d_v"),
    "d_model": (r"d_{\mathrm{model}}", 'd_"model"'),
    "n": ("n", "n"),
    "c": ("c", "c"),
    "d": ("d", "d"),
    "i": ("i", "i"),
    "j": ("j", "j"),
    "e": ("e", "e"),
}


def frac(top, bottom):
    top, bottom = _piece(top), _piece(bottom)
    return Math(rf"\frac{{{top.latex}}}{{{bottom.latex}}}", f"({top.typst})/({bottom.typst})")


def sqrt(inner):
    inner = _piece(inner)
    return Math(rf"\sqrt{{{inner.latex}}}", f"sqrt({inner.typst})")


def exp(inner):
    inner = _piece(inner)
    return Math(rf"\exp({inner.latex})", f"exp({inner.typst})")


def power(base, exponent):
    base, exponent = _piece(base), _piece(exponent)
    return Math(f"{base.latex}^{{{exponent.latex}}}", f"{base.typst}^({exponent.typst})")


def max_of(items):
    inner = _list(items)
    return Math(rf"\max({inner.latex})", f"max({inner.typst})")


def total(index):
    """The sum sign over ``index`` (one of _LETTERS, optionally primed: "j'")."""
    letter = index.rstrip("'")
    mark = "'" * (len(index) - len(letter))
    latex, typst = _LETTERS[letter]
    return Math(rf"\sum_{{{latex}{mark}}}", f"sum_({typst}{mark})")


def _list(items):
    pieces = [_piece(p) for p in items]
    return Math(", ".join(p.latex for p in pieces), ", ".join(p.typst for p in pieces))


def vector(values, places=4):
    """(a, b, c) of numbers."""
    inner = _list([num(v, places) for v in values])
    return Math(rf"({inner.latex})", f"({inner.typst})")


def products(left, right, places=4):
    """a·b + c·d + ...: the terms of a dot product, a negative factor in parentheses."""
    terms = [
        seq(num(a, places, paren=True), "·", num(b, places, paren=True))
        for a, b in zip(left, right, strict=True)
    ]
    return _join_terms(terms)


def added(values, places=4):
    """a + b + c, a negative term written as "- |t|"."""
    return _join_terms([num(v, places) for v in values])


def _join_terms(terms):
    if not terms:
        return num(0)
    latex, typst = [terms[0].latex], [terms[0].typst]
    for term in terms[1:]:
        if term.latex.startswith("-"):
            latex += ["-", term.latex[1:]]
            typst += ["-", term.typst[1:]]
        else:
            latex += ["+", term.latex]
            typst += ["+", term.typst]
    return Math(" ".join(latex), " ".join(typst))


def matrix(M, places=4):
    """A bracketed matrix of numbers."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    rows = [[shown(v, places) for v in row] for row in M]
    latex = r" \\ ".join(" & ".join(row) for row in rows)
    typst = "; ".join(", ".join(row) for row in rows)
    return Math(rf"\begin{{bmatrix}} {latex} \end{{bmatrix}}", f'mat(delim: "[", {typst})')


def shape(rows, cols):
    """R^{rows x cols}."""
    return Math(rf"\mathbb{{R}}^{{{rows} \times {cols}}}", f"RR^({rows} times {cols})")


def text_in_math(words):
    """Plain words inside a formula: fixed ASCII words of this package only (never user text)."""
    if not all(c.isalnum() or c in " -:,()" for c in words):
        raise ValueError(f"text_in_math takes plain words, not {words!r}")
    return Math(rf"\text{{{words}}}", f'"{words}"')


# --- Text beside the formulas -------------------------------------------------------------------

_TYPST_STRING = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


def typst_text(text):
    """``text`` as typst markup that shows it exactly as it is: a string literal ``#"...";``
    (every character literal, the ``;`` ends the expression so nothing after it is read as
    code). Control and invisible characters are written out as ``\\u{...}`` escapes."""
    body = str(text).translate(_TYPST_STRING)
    body = "".join(c if c.isprintable() or c in "\\" else f"\\u{{{ord(c):x}}}" for c in body)
    return f'#"{body}";'


def typst_segments(segments):
    """A hint or a sentence (a sequence of str and Math) as typst markup."""
    return " ".join(f"${s.typst}$" if isinstance(s, Math) else typst_text(s) for s in segments)
