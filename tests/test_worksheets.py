"""Worksheets as PDF, read back with pypdf: the exercise's numbers on its page, every answer
on the key's, a class set in order with the keys at the end, the cap, and text that stays
text in the typst source."""

import io
import re

import numpy as np
import pypdf
import pytest

from attnviz.exercises import make_exercise
from attnviz.exercises.latex_typst import to_typst
from attnviz.exercises.notation import shown, typst_text
from attnviz.exercises.pdf import (
    PdfError,
    cheat_sheet_pdf,
    class_seeds,
    class_set_pdf,
    compile_pdf,
    pdf_name,
    seen_matrices,
    worksheet_pdf,
)
from attnviz.exercises.worksheet import (
    PREAMBLE,
    cheat_sheet_source,
    class_set_source,
    marking_grid,
    summary_symbol,
)
from attnviz.lessons.summary import summary_rows
from attnviz.limits import MAX_CLASS_SET, MAX_SEED
from tests.helpers import ROOT


def pages_text(pdf):
    """The text of each page, with typst's minus sign as "-"."""
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [page.extract_text().replace("−", "-") for page in reader.pages]


def numbers(text):
    return re.findall(r"-?\d+(?:\.\d+)?", text)


@pytest.mark.parametrize(("level", "seed", "exp_given"), [(1, 3, False), (4, 5, True)])
def test_the_worksheet_holds_the_exercise_and_the_key_every_answer(level, seed, exp_given):
    ex = make_exercise(level, seed, exp_given)
    pdf = worksheet_pdf(level, seed, exp_given)
    assert pdf.startswith(b"%PDF") and len(pdf) < 200_000
    sheet, key = pages_text(pdf)  # the worksheet on one page, the key on the next
    assert f"Level {level} · seed {seed}" in sheet and f"Level {level} · seed {seed}" in key
    assert f"ex_level={level}&ex_seed={seed}" in sheet and "Answer key" in key
    shown_numbers = numbers(sheet)
    for M in {"1": (ex.result.X, ex.result.W_Q, ex.result.W_K)}.get(
        str(level), (ex.result.Q, ex.result.K, ex.result.V)
    ):
        for x in np.asarray(M).ravel():
            assert shown(x) in shown_numbers, shown(x)  # every given entry is printed
    for b in ex.blanks:
        assert b.tolerance.describe() in sheet
        assert shown(b.expected, 4) in numbers(key), (b.key, shown(b.expected, 4))
    if exp_given:
        for _, value in ex.exp_table:
            assert shown(value, 4) in numbers(sheet)


def test_a_class_set_is_every_worksheet_then_the_marking_grid_then_every_key():
    pdf = class_set_pdf(2, MAX_SEED, 2)  # seeds wrap past the largest
    assert class_seeds(MAX_SEED - 1, 3) == [MAX_SEED - 1, MAX_SEED, 0]
    texts = pages_text(pdf)
    assert len(texts) == 4  # two sheets, the marking grid, then both keys on one page
    labels = [re.findall(r"Level 2 · seed (\d+)", t) for t in texts]
    assert labels == [[str(MAX_SEED)], ["0"], [], [str(MAX_SEED), "0"]]
    assert f"Marking grid: level 2, seeds {MAX_SEED} to 0" in texts[2]
    assert [t.count("Answer key") for t in texts] == [0, 0, 0, 2]
    _, first, second = texts[3].split("Answer key")
    for text, seed in zip((first, second), (MAX_SEED, 0), strict=True):
        for b in make_exercise(2, seed).blanks:
            assert shown(b.expected, 4) in numbers(text)


def test_a_class_set_holds_one_to_the_cap():
    exercises = [make_exercise(1, s) for s in range(MAX_CLASS_SET)]
    assert class_set_source(exercises).count("#sheet-head(") == 2 * MAX_CLASS_SET
    assert class_set_source(exercises).count("#page(flipped: true") == 1  # the marking grid
    for count in (0, MAX_CLASS_SET + 1):
        with pytest.raises(ValueError, match=f"1 to {MAX_CLASS_SET}"):
            class_set_pdf(1, 0, count)
    with pytest.raises(ValueError):
        class_set_source([])


def test_text_put_into_typst_stays_text():
    nasty = 'a"b\\c #set page(width: 1cm) $x^2$ *bold* _it_ <lab> @ref // no comment [x] ]'
    pdf = compile_pdf(PREAMBLE + typst_text(nasty) + typst_text(".field") + "\n")
    (text,) = pages_text(pdf)
    flat = " ".join(text.split())
    assert nasty.replace("\\\\", "\\") in flat and ".field" in flat
    assert typst_text("line\nbreak\u202e") == '#"line\\nbreak\\u{202e}";'


def test_the_summarys_latex_becomes_typst_math_and_the_unknown_is_refused():
    cases = {
        r"S' = \frac{S}{\sqrt{d_k}}": "S' = (S)/(sqrt(d_(k)))",
        r"Q = XW_Q": "Q = X W_(Q)",
        r"A = \mathrm{softmax}(S' / 0.5 + M), \ \textstyle\sum_j A_{ij} = 1": (
            'A = op("softmax") ( S\' \\/ 0.5 + M ) , med sum_(j) A_(i j) = 1'
        ),
        r"n \times d_{model}": "n times d_(m o d e l)",
        r"S' = S \quad \text{(scaling off)}": 'S\' = S quad "(scaling off)"',
    }
    for latex, typst in cases.items():
        assert to_typst(latex) == typst
    compile_pdf(" ".join(f"$ {t} $" for t in cases.values()))  # all of them compile
    for bad in (r"\input{x}", r"\frac{a}", "a}", "{a", r"#x", '"x"', r"\mathbb{Z}"):
        with pytest.raises(ValueError):
            to_typst(bad)


def test_the_cheat_sheet_is_the_summary_on_one_page_with_the_exercises_sizes():
    ex = make_exercise(4, 5)
    (text,) = pages_text(cheat_sheet_pdf(4, 5))  # one page
    flat = " ".join(text.split())
    rows = summary_rows(ex.result)
    assert rows[0].concept == "Input embedding" and rows[-1].concept == "Attention output"
    shown = {"Q", "K", "V", "S'", "A", "Output"}  # what the level-4 sheet gives or asks for
    for row in rows:
        assert row.concept in flat and " ".join(row.meaning.split()) in flat
    assert seen_matrices(ex) == shown
    source = cheat_sheet_source(rows, "label", seen_matrices(ex))
    cells = source.split("[*")[5:]  # after the header's four: one per row, from its concept
    sized = {summary_symbol(row) for row, cell in zip(rows, cells, strict=True) if "(here" in cell}
    assert sized == shown  # X and the weights are never on that sheet: no size for them
    assert "level 4 · seed 5" in flat and "softmax" in flat


def test_every_level_with_and_without_the_table_of_powers_compiles():
    exercises = [make_exercise(lv, s, s % 2 == 1) for lv in range(1, 6) for s in (20, 21)]
    reader = pypdf.PdfReader(io.BytesIO(compile_pdf(class_set_source(exercises))))
    last = reader.pages[len(exercises) - 1].extract_text()
    assert exercises[-1].label in last and exercises[-1].title in last
    # then the keys, several to a page, in order, each whole on one page
    key_pages = [page.extract_text() for page in reader.pages[len(exercises) :]]
    assert len(key_pages) < len(exercises)
    keys = [(k, t) for k, text in enumerate(key_pages) for t in text.split("Answer key")[1:]]
    assert [ex.label in t for (_, t), ex in zip(keys, exercises, strict=True)] == [True] * 10


def test_the_download_names_tell_the_variants_apart():
    names = {
        pdf_name("worksheet", 4, 5),
        pdf_name("worksheet", 4, 5, exp_given=True),
        pdf_name("class-set", 4, 5, last=34),
        pdf_name("class-set", 4, 5, True, 34),
        pdf_name("cheat-sheet", 4, 5),
    }
    assert len(names) == 5 and pdf_name("worksheet", 4, 5, True).endswith("-with-e-table.pdf")


def test_a_pdf_is_compiled_in_a_process_that_ends_and_its_errors_are_words():
    """typst never loads in the asking process (the server), so its memory goes back."""
    import subprocess
    import sys

    from attnviz.exercises.pdf import PdfError, compile_pdf

    code = (
        "import sys; from attnviz.exercises.pdf import worksheet_pdf; "
        "assert worksheet_pdf(1, 0).startswith(b'%PDF'); print('typst' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "False", done.stderr
    with pytest.raises(PdfError, match="typst could not make the PDF"):
        compile_pdf("#let x = (")


def test_the_marking_grid_is_one_page_of_every_seeds_answers_at_the_cap():
    """A class set of MAX_CLASS_SET at the level with the most items (24) is marked from one
    page: a row per seed, item k's value in column k, as the key's last number (review 5)."""
    exercises = [make_exercise(5, s) for s in class_seeds(3, MAX_CLASS_SET)]
    texts = pages_text(compile_pdf(PREAMBLE + marking_grid(exercises)))
    assert len(texts) == 1
    lines = texts[0].splitlines()
    for ex in exercises:
        row = next(line for line in lines if line.split()[:1] == [str(ex.seed)])
        assert row.split()[1:] == [shown(b.expected) for b in ex.blanks], ex.seed


def test_no_key_line_wraps_a_long_equation():
    """Each key line is one line: a working too long for half a line takes a whole one, and one
    too long for that is shrunk to it, never wrapped (review 5: in the level-2 keys a long
    equation wrapped and its item number sat between its two lines). typst checks each: the
    line as set is no taller than the equation set on an unbounded line, and no wider than
    the text."""
    workings = {b.working.typst for s in range(7, 37) for b in make_exercise(2, s).blanks}
    workings |= {b.working.typst for s in range(3) for b in make_exercise(5, s).blanks}
    checks = "".join(
        "#context {\n"
        f"  let eq = $display({w})$\n"
        "  let drawn = measure(fitted(eq, text-width), width: text-width)\n"
        "  let free = measure(box(eq), width: 100cm)\n"
        '  assert(drawn.height <= free.height + 0.01pt, message: "wrapped")\n'
        '  assert(drawn.width <= text-width.to-absolute() + 0.01pt, message: "too wide")\n'
        "}\n"
        for w in sorted(workings)
    )
    compile_pdf(PREAMBLE + "#set text(size: 9pt)\n" + checks)  # raises on a failed assert
    long = max(workings, key=len)  # and the check can fail: an equation wrapped in 3 cm
    with pytest.raises(PdfError, match="wrapped"):
        compile_pdf(
            PREAMBLE
            + "#context {\n"
            + f"  let eq = $display({long})$\n"
            + "  let drawn = measure(box(width: 3cm, eq), width: text-width)\n"
            + "  let free = measure(box(eq), width: 100cm)\n"
            + '  assert(drawn.height <= free.height, message: "wrapped")\n'
            + "}\n"
        )
