"""The typst source of a worksheet, its answer key, a class set and the cheat sheet (text, no
compiling: that is ``attnviz.exercises.pdf``).

A worksheet is the exercise with its blanks and room to write, the formulas it needs and its
level and seed; the key, on a page of its own, works every blank out with the sums the
inspectors show (``Blank.working``). Everything put into the source is either a formula built
by ``notation`` from numbers and fixed symbols, or text passed through ``typst_string`` /
``typst_text`` (a string literal: nothing in it can become markup or code).
"""

from attnviz.exercises.exercise import exp_table_math
from attnviz.exercises.notation import shown, typst_text
from attnviz.limits import MAX_CLASS_SET

PAGE_URL = "Work_it_out"  # the page's address, printed so that a paper can be checked there
KEY_ONE_COLUMN = 14  # a key with more blanks is set in two columns, so that it fits a page
GRID_LARGE_ROWS = 30  # a marking grid of more sheets is set in the smaller of GRID_TEXT_PT
GRID_TEXT_PT = (8.5, 6.5)

PREAMBLE = r"""
#set document(title: "attnviz worksheet", author: "attnviz")
#set page(paper: "a4", margin: (x: 1.7cm, top: 1.5cm, bottom: 1.6cm),
  footer: context [#set text(size: 8pt, fill: luma(110)); #h(1fr) #counter(page).display()])
#set text(size: 10.5pt, lang: "en")
#set par(justify: false, leading: 0.55em)
#set math.mat(delim: "[", column-gap: 0.7em)
#let muted(body) = text(fill: luma(100), size: 8.5pt, body)
#let sheet-head(title, label, kind) = {
  grid(columns: (1fr, auto), align: (left + bottom, right + bottom),
    text(size: 15pt, weight: "bold", title), text(size: 10pt, weight: "bold", label))
  v(-0.5em)
  line(length: 100%, stroke: 0.6pt)
  muted(kind)
}
#let given(name, m, note) = box(inset: (right: 1.4em, bottom: 0.4em))[
  $display(#name = #m)$ #if note != "" [ #muted(note)]]
#let blank(k, name, tol) = block(breakable: false, width: 100%, inset: (top: 0.2em))[
  #text(weight: "bold", str(k) + ".") #h(0.2em) $display(#name) =$ #h(0.2em)
  #box(width: 2.6cm, height: 1.5em, stroke: 0.5pt + luma(60), radius: 2pt, baseline: 30%)
  #h(0.2em) #muted(tol)]
#let text-width = 21cm - 2 * 1.7cm
#let fitted(eq, room) = {  // an equation on one line: shrunk to its room, never wrapped
  let (w, room) = (measure(eq).width, room.to-absolute())
  if w <= room { box(eq) } else {
    scale(x: room / w * 100%, y: room / w * 100%, reflow: true, box(eq)) }
}
#let keyline(k, working) = block(breakable: false, inset: (y: 0.35em))[
  #context grid(columns: (1.6em, 1fr), column-gutter: 0.6em, align: (right + horizon, left),
    text(weight: "bold", str(k) + "."), fitted($display(#working)$, text-width - 2.2em))]
#let keyline-compact(k, working) = context {  // half a line, or a whole one when it is longer
  let eq = $display(#working)$
  let half = (0.49 * text-width - 2em).to-absolute()
  box(width: if measure(eq).width <= half { 49% } else { 100% }, inset: (y: 0.3em),
    grid(columns: (1.6em, 1fr), column-gutter: 0.4em, align: (right + horizon, left),
      text(weight: "bold", str(k) + "."), fitted(eq, text-width - 2em)))
}
#let formulas(body) = block(fill: luma(244), inset: 0.7em, radius: 3pt, width: 100%, body)
"""


def typst_string(text):
    """``text`` as a typst string literal ("..."), for a function's argument."""
    return typst_text(text)[1:-1]  # typst_text is #"...";


def _given(g):
    return f"#given(${g.name.typst}$, ${g.matrix.typst}$, {typst_string(g.note)})"


def _head(ex, kind, key=False):
    title = f"{'Answer key' if key else 'Work it out'}: {ex.title}"
    return f"#sheet-head({typst_string(title)}, {typst_string(ex.label)}, {typst_string(kind)})\n"


def worksheet_body(ex):
    """The worksheet's page(s): the task, the givens, the formulas, the blanks with room."""
    check = (
        f"Check your answers on attnviz's {PAGE_URL.replace('_', ' ')} page: choose level "
        f"{ex.level} and seed {ex.seed} (its link ends ?ex_level={ex.level}&ex_seed={ex.seed}"
        f"{'&ex_exp=given' if ex.exp_given else ''})."
    )
    out = [_head(ex, check), "#v(0.3em)\n"]
    out.append("Name: #box(width: 6cm, repeat[.]) #h(1fr) Date: #box(width: 3cm, repeat[.])\n\n")
    out.append(f"*Task.* {typst_text(ex.task)}\n\n")
    out.append(typst_text("Rows and columns are numbered from 1. Given:") + "\n\n")
    out.append(" ".join(_given(g) for g in ex.givens) + "\n\n")
    formulas = " #h(1.2em) ".join(f"#box($display({f.typst})$)" for f in ex.formulas)
    out.append(f"#formulas[*Formulas.* #h(0.6em) {formulas}]\n\n")
    if ex.exp_table:
        cells = ", ".join(f"[${m.typst}$]" for m in exp_table_math(ex.exp_table))
        out.append(
            "#block(inset: (y: 0.2em))[*Powers of e* #muted[(given; not every one is needed)]]\n"
            f"#grid(columns: 5, column-gutter: 1.4em, row-gutter: 0.5em, {cells})\n\n"
        )
    out.append(
        "#v(0.3em) "
        + typst_text("Write each answer in its box, and your working in the space under it.")
        + " #muted["
        + typst_text("(Beside each box: how close an answer must be.)")
        + "]\n\n"
    )
    rows = -(-len(ex.blanks) // 2)  # two columns of blanks, sharing what is left of the page
    cells = ", ".join(
        f"blank({k}, ${b.name.typst}$, {typst_string(b.tolerance.describe())})"
        for k, b in enumerate(ex.blanks, start=1)
    )
    out.append(
        f"#block(height: 1fr, grid(columns: (1fr, 1fr), rows: (1fr,) * {rows}, "
        f"column-gutter: 1.2em, {cells}))\n"
    )
    return "".join(out)


def key_body(ex, compact=False):
    """The answer key: every blank worked out, with the value to count as right. ``compact``:
    smaller, two lines side by side (a class set's keys, several to a page)."""
    out = [_head(ex, "Every step worked, the same sums as the page's inspectors.", key=True)]
    line = "keyline-compact" if compact else "keyline"
    lines = "".join(
        f"#{line}({k}, ${b.working.typst}$)\n" for k, b in enumerate(ex.blanks, start=1)
    )
    if compact:
        lines = lines.replace("\n", " ")  # boxes side by side, two to a line
    elif len(ex.blanks) > KEY_ONE_COLUMN:  # a long key in two columns, smaller: one page
        lines = f"#set text(size: 9pt)\n#columns(2, gutter: 1.2em)[\n{lines}]\n"
    return "".join(out) + "#v(0.4em)\n" + lines


def worksheet_source(ex):
    """One exercise: the worksheet, then its key on a page of its own."""
    return PREAMBLE + worksheet_body(ex) + "#pagebreak()\n" + key_body(ex)


def keys_source(exercises):
    """The keys of ``exercises``, one after another, as many to a page as fit (a key is never
    split between two pages), separated by a rule."""
    keys = "#line(length: 100%, stroke: 0.4pt + luma(160))\n".join(
        f"#block(breakable: false, width: 100%)[\n{key_body(ex, compact=True)}]\n"
        for ex in exercises
    )
    return f"#[\n#set text(size: 9pt)\n{keys}]\n"


def marking_grid(exercises):
    """One landscape page: a row per sheet (its seed), a column per item, each cell the value
    to count as right (as a student writes it, the key's last number): the class set marked
    from one page. Its text shrinks with the rows, so MAX_CLASS_SET sheets still fit."""
    items = max(len(ex.blanks) for ex in exercises)
    size = GRID_TEXT_PT[0] if len(exercises) <= GRID_LARGE_ROWS else GRID_TEXT_PT[1]
    head = ["Seed", *map(str, range(1, items + 1))]
    cells = [f"[*{typst_text(h)}*]" for h in head]
    for ex in exercises:
        values = [shown(b.expected) for b in ex.blanks] + [""] * (items - len(ex.blanks))
        cells += [f"[*{ex.seed}*]", *(f"[{typst_text(v)}]" if v else "[]" for v in values)]
    level = exercises[0].level
    title = f"Marking grid: level {level}, seeds {exercises[0].seed} to {exercises[-1].seed}"
    note = (
        "Item k is the worksheet's box k; each cell is the value to count as right, within the "
        "tolerance printed beside the box. The working is in the keys after this page."
    )
    return (
        f"#page(flipped: true, margin: (x: 1.2cm, y: 1.1cm))[\n#set text(size: {size}pt)\n"
        f'#text(size: 12pt, weight: "bold", {typst_string(title)})\n\n#muted[{typst_text(note)}]\n'
        f"#table(columns: (auto,) + (1fr,) * {items}, inset: (x: 3pt, y: 1.6pt), align: right, "
        f"stroke: 0.3pt + luma(170), fill: (x, y) => if calc.odd(y) {{ luma(245) }}, "
        + ", ".join(cells)
        + ")]\n"
    )


def class_set_source(exercises):
    """Several exercises: every worksheet (each from a new page), then the marking grid on one
    page (``marking_grid``), then every key, several to a page (``keys_source``). At most
    MAX_CLASS_SET of them (ValueError beyond)."""
    if not 1 <= len(exercises) <= MAX_CLASS_SET:
        raise ValueError(
            f"a class set holds 1 to {MAX_CLASS_SET} worksheets (got {len(exercises)})"
        )
    sheets = "#pagebreak()\n".join(worksheet_body(ex) for ex in exercises)
    return PREAMBLE + sheets + marking_grid(exercises) + keys_source(exercises)


CHEAT_PREAMBLE = r"""
#set document(title: "attnviz: self-attention on one page", author: "attnviz")
#set page(paper: "a4", flipped: true, margin: (x: 1.5cm, y: 1.2cm))
#set text(size: 12pt, lang: "en")
#set par(justify: false)
#let muted(body) = text(fill: luma(100), size: 8.5pt, body)
#show math.equation.where(block: true): set align(left)
#show math.equation.where(block: true): set block(above: 0.3em, below: 0.3em)
"""


def summary_symbol(row):
    """The matrix a Summary row defines, as written before its "=": X, W_Q, S', Output."""
    return row.formula.split("=")[0].strip().replace(r"\mathrm{Output}", "Output")


def cheat_sheet_source(rows, label, seen=None):
    """The course module's Summary on one landscape page: a row per concept (``rows``, the
    ``SummaryRow`` of ``lessons.summary``: concept, LaTeX formula and shape, live sizes,
    meaning), under the complete formula; ``label`` says where the live sizes come from.
    ``seen``: the symbols (``summary_symbol``) of the matrices the student saw, the only ones
    given a live size (None: every row)."""
    from attnviz.exercises.latex_typst import to_typst

    cells = []
    for row in rows:
        sizes = " × ".join(str(x) for x in row.shape)
        size = f"(here {sizes})" if seen is None or summary_symbol(row) in seen else ""
        cells += [
            f"[*{typst_text(row.concept)}*]",
            f"[$ {to_typst(row.formula)} $]",  # display style (a block: commas are fine)
            f"[${to_typst(row.symbols)}$ #muted[{typst_text(size)}]]",
            f"[{typst_text(row.meaning)}]",
        ]
    header = ", ".join(f"[*{typst_text(h)}*]" for h in ("Concept", "Formula", "Shape", "Meaning"))
    formula = to_typst(
        r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^T}"
        r"{\sqrt{d_k}}\right) V"
    )
    return (
        CHEAT_PREAMBLE
        + "#grid(columns: (1fr, auto), align: (left + bottom, right + bottom), "
        + f'text(size: 16pt, weight: "bold", {typst_string("Self-attention on one page")}), '
        + f"muted({typst_string(label)}))\n"
        + "#line(length: 100%, stroke: 0.6pt)\n"
        + f"#align(center, block(inset: (y: 0.3em), text(size: 15pt, $ {formula} $)))\n"
        + "#table(columns: (auto, auto, auto, 1fr), inset: (x: 0.55em, y: 0.62em), "
        + "align: (left + horizon, left + horizon, left + horizon, left + horizon), "
        + "stroke: (x, y) => (bottom: 0.4pt + luma(180), top: if y == 0 { 0.8pt }), "
        + "fill: (x, y) => if y == 0 { luma(235) }, "
        + header
        + ", "
        + ", ".join(cells)
        + ")\n"
        + "#v(0.4em) #muted["
        + typst_text(
            "Rows are queries (i), columns keys (j). M, where it appears, is the mask: 0 where "
            "query i may see key j, −∞ where it may not. The sizes in parentheses are those of "
            "the matrices this exercise shows or asks for."
        )
        + "]\n"
    )
