"""Worksheets as PDF: the typst source of ``worksheet`` compiled by the ``typst`` package (its
compiler and fonts are in the wheel: no system packages), with the fonts it bundles only, so a
sheet looks the same on every machine. Bounded: a class set holds at most MAX_CLASS_SET sheets
(about 1 s and 1 MB at the cap, measured in benchmarks/worksheets.py).

Each PDF is compiled in a short-lived Python process of its own: the typst compiler keeps
what it loaded (fonts, its caches) for the life of the process that called it, which in the
server was every visitor's (two class sets took the server from 159 MB to 456 MB, issue 36);
a process that ends gives all of it back (``benchmarks/pdf_memory.py`` measures both ways).
"""

import subprocess
import sys

from attnviz.exercises.exercise import make_exercise
from attnviz.exercises.worksheet import cheat_sheet_source, class_set_source, worksheet_source
from attnviz.limits import MAX_CLASS_SET, MAX_SEED, PDF_TIMEOUT_SECONDS

# What the short-lived process runs: typst source on stdin, the PDF's bytes on stdout.
_COMPILE = (
    "import sys, typst; "
    "sys.stdout.buffer.write(typst.compile(sys.stdin.buffer.read(), ignore_system_fonts=True))"
)


class PdfError(RuntimeError):
    """The typst compiler failed or took longer than PDF_TIMEOUT_SECONDS; says which."""


def compile_pdf(source):
    """PDF bytes of typst ``source`` (str), with typst's own fonts only, compiled in a process
    of its own that ends after it (its memory goes back to the system)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE],
            input=source.encode("utf-8"),
            capture_output=True,
            timeout=PDF_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise PdfError(f"the PDF took longer than {PDF_TIMEOUT_SECONDS} s to make") from exc
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PdfError(f"typst could not make the PDF: {said[-1] if said else done.returncode}")
    return done.stdout


def worksheet_pdf(level, seed, exp_given=False):
    """The worksheet of (level, seed) and, on its second page, its answer key."""
    return compile_pdf(worksheet_source(make_exercise(level, seed, exp_given)))


def pdf_name(kind, level, seed, exp_given=False, last=None):
    """The download's file name: ``kind`` (worksheet, class-set, cheat-sheet), level and seed(s)
    (``last``: a class set's last seed), and whether it gives the table of powers of e, so the
    two variants of one sheet never overwrite each other."""
    seeds = f"seed{seed}" if last is None else f"seeds{seed}-{last}"
    table = "-with-e-table" if exp_given else ""
    return f"attnviz-{kind}-level{level}-{seeds}{table}.pdf"


def class_seeds(first_seed, count):
    """``count`` seeds from ``first_seed`` on (wrapping past MAX_SEED): one per student."""
    return [(first_seed + k) % (MAX_SEED + 1) for k in range(count)]


def class_set_pdf(level, first_seed, count, exp_given=False):
    """``count`` worksheets (1 to MAX_CLASS_SET), seeds ``class_seeds(first_seed, count)``,
    then their keys. ValueError for a count outside 1 to MAX_CLASS_SET."""
    if not 1 <= count <= MAX_CLASS_SET:
        raise ValueError(f"a class set holds 1 to {MAX_CLASS_SET} worksheets (got {count})")
    exercises = [make_exercise(level, s, exp_given) for s in class_seeds(first_seed, count)]
    return compile_pdf(class_set_source(exercises))


# A blank's key starts with the matrix it fills (Sp: S', O: the output; shape_S_rows: S's shape)
BLANK_MATRICES = {"Q": "Q", "K": "K", "S": "S", "Sp": "S'", "A": "A", "O": "Output"}


def seen_matrices(ex):
    """The matrices the sheet of ``ex`` (an Exercise) shows or asks for, as the Summary's
    symbols (X, W_Q, Q, S, S', A, Output, ...): its givens (a row of A is A's) and the
    matrices its blanks fill."""
    seen = {g.what.split(" of ")[-1] for g in ex.givens}
    for blank in ex.blanks:
        head = blank.key.removeprefix("shape_").split("_")[0]
        if head in BLANK_MATRICES:
            seen.add(BLANK_MATRICES[head])
    return frozenset(seen)


def cheat_sheet_pdf(level, seed, exp_given=False):
    """The course module's Summary on one page, with the live sizes of the matrices (level,
    seed)'s sheet shows (``lessons.summary.summary_rows`` of its result, ``seen_matrices``)."""
    from attnviz.lessons.summary import summary_rows

    ex = make_exercise(level, seed, exp_given)
    label = f"attnviz · sizes from Work it out, {ex.label.lower()}"
    return compile_pdf(cheat_sheet_source(summary_rows(ex.result), label, seen_matrices(ex)))
