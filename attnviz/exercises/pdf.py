"""Worksheets as PDF: the typst source of ``worksheet`` compiled by the ``typst`` package (its
compiler and fonts are in the wheel: no system packages), with the fonts it bundles only, so a
sheet looks the same on every machine. Bounded: a class set holds at most MAX_CLASS_SET sheets
(about 1 s and 1 MB at the cap, measured in benchmarks/worksheets.py).
"""

from attnviz.exercises.exercise import make_exercise
from attnviz.exercises.worksheet import cheat_sheet_source, class_set_source, worksheet_source
from attnviz.limits import MAX_CLASS_SET, MAX_SEED


def compile_pdf(source):
    """PDF bytes of typst ``source`` (str), with typst's own fonts only."""
    import typst  # imported on first use: `import attnviz.exercises` stays light

    return typst.compile(source.encode("utf-8"), ignore_system_fonts=True)


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
