"""The Work it out page's views: the exercise's controls, its givens, a box per blank checked as
the student types, hints one at a time, the score, and the PDFs.

A session keeps the choice (level, seed, whether e^x is given: ``ExerciseChoice``), the typed
texts (the boxes ``ex_ans_<blank>``, copied into ``ex.typed`` so that they survive a visit to
another page, which drops a widget's own state) and how many hints each blank shows
(``ex.hints.<blank>``): never arrays. The exercise itself lives in the shared cache, keyed by
the choice. A new session starts from the URL (``ex_level``, ``ex_seed``, ``ex_exp``:
``attnviz.links.work_it_out``), and the URL follows the controls. Widget keys start with
``ex_``. The PDFs are made on click, from the choice (``st.download_button`` with a
callable), never kept.
"""

import functools
import math
import secrets
from urllib.parse import urlencode

import streamlit as st

from attnviz.exercises import LEVELS, SOFTMAX_LEVELS, check
from attnviz.exercises.draw import SIZES
from attnviz.exercises.exercise import A_PLACES, exp_table_math
from attnviz.exercises.notation import Math
from attnviz.exercises.pdf import cheat_sheet_pdf, class_set_pdf, pdf_name, worksheet_pdf
from attnviz.files.own_numbers import format_matrix
from attnviz.limits import MAX_ANSWER_CHARS, MAX_CLASS_SET, MAX_SEED, PDF_SECONDS
from attnviz.links.work_it_out import NAMES, ExerciseChoice, choice_from_query
from attnviz.serve.gate import deferred
from attnviz.ui.sidebar import is_present, page_choice, write_page_params
from attnviz.ui.text import md_escape

PAGE_PARAMS = NAMES
CHOICE_KEY = "ex.choice"  # the ExerciseChoice in force, kept across pages
URL_KEY = "ex.url"  # (ExerciseChoice read from the URL, its warnings)
LEVEL, SEED, EXP = "ex_level_pick", "ex_seed_pick", "ex_exp_pick"  # widget keys
ANSWER = "ex_ans_"  # + a blank's key: the text typed in its box
HINTS = "ex.hints."  # + a blank's key: how many of its hints are shown
TYPED = "ex.typed"  # {blank's key: text typed}: kept across pages (a widget's own state is not)
CLASS_N = "ex_class_n"
CLASS_KEPT = "ex.class_n"  # the class set's size, kept across pages
NEW_SEEDS = 1_000_000  # "New exercise" draws a seed below this: short to print and to type
DEFAULT_CLASS = 30


def _forget_answers():
    """Clear every typed answer and hint count (a new exercise starts blank)."""
    state = st.session_state
    for key in [k for k in state if str(k).startswith((ANSWER, HINTS))]:
        del state[key]
    state[TYPED] = {}


def _new_exercise():
    st.session_state[SEED] = secrets.randbelow(NEW_SEEDS)
    _forget_answers()


def intro():
    """What every exercise is like, its numbers read from the drawing's own sizes."""
    tokens = [n for sizes in SIZES.values() for n in sizes[0]]
    scaled = {d for level in SOFTMAX_LEVELS for d in SIZES[level][2]}
    root = ", ".join(f"{math.sqrt(d):g}" for d in sorted(scaled))
    st.markdown(
        f"Each exercise is small on purpose: {min(tokens)} to {max(tokens)} tokens, matrices of "
        f"whole numbers and halves (level 3's row of A is rounded to {A_PLACES} decimals), and "
        f"√d_k = {root} wherever you scale. Pick a level, work on paper or in your head, and "
        "type each number. Every expected number is the one the core computes (the same "
        "`self_attention` as on every other page); the hints are the cell inspectors' own "
        "sums, one step at a time."
    )


def start():
    """The choice in force: from the URL in a new session, else as last left."""
    return page_choice(choice_from_query, URL_KEY, CHOICE_KEY)


def controls(choice):
    """Level, seed, e^x given or not, New exercise; return the ExerciseChoice they hold."""
    state = st.session_state
    for key, value in ((LEVEL, choice.level), (SEED, choice.seed), (EXP, choice.exp_given)):
        if key not in state:
            state[key] = value
    st.radio(
        "Level",
        list(LEVELS),
        format_func=lambda k: f"{k}. {LEVELS[k]}",
        key=LEVEL,
        horizontal=True,
        on_change=_forget_answers,
    )
    left, middle, right = st.columns([2, 2, 3], vertical_alignment="bottom")
    left.number_input(
        "Seed",
        0,
        MAX_SEED,
        step=1,
        key=SEED,
        on_change=_forget_answers,
        help="Same level and seed, same numbers: on screen, on paper, for everyone.",
    )
    middle.button("🎲 New exercise", key="ex_new", on_click=_new_exercise)
    softmax = state[LEVEL] in SOFTMAX_LEVELS
    right.toggle(
        "Give me a table of eˣ",
        key=EXP,
        on_change=_forget_answers,
        disabled=not softmax,
        help="Levels 2, 4 and 5 take e to a power. On: the sheet lists the powers of e you "
        "need (and a few you don't). Off: you work them out with a calculator.",
    )
    new = ExerciseChoice(int(state[LEVEL]), int(state[SEED]), bool(state[EXP]) and softmax)
    state[CHOICE_KEY] = new
    return new


def sync_url(choice):
    """Write the exercise into the URL (the sidebar's settings stay as they are)."""
    write_page_params(PAGE_PARAMS, choice.to_query())


def segments_markdown(segments):
    """A hint (str and Math segments) as markdown: text escaped, formulas as $LaTeX$."""
    return " ".join(f"${s.latex}$" if isinstance(s, Math) else md_escape(s) for s in segments)


def show_exercise(ex):
    """The task, the givens, the formulas and (when given) the powers of e."""
    st.subheader(f"Level {ex.level}: {ex.title}")
    st.caption(
        f"{ex.label}. Rows and columns are numbered from 1, as on paper (the inspectors on the "
        "other pages count from 0)."
    )
    st.markdown(f"**Task.** {md_escape(ex.task)}")
    # side by side (stacked on a phone); on a projector one to a row, so that a matrix keeps
    # its size instead of shrinking to a third of the width
    per_row = 1 if is_present() else max(len(ex.givens), 1)
    givens = st.container(key="ex_givens")  # what the projector test finds on the first screen
    for start in range(0, len(ex.givens), per_row):
        row = ex.givens[start : start + per_row]
        for g, column in zip(row, givens.columns(per_row), strict=False):
            column.latex(f"{g.name.latex} = {g.matrix.latex}")
            if g.note:
                column.caption(md_escape(f"{g.what}: {g.note}."))
    with st.expander("The formulas you need", expanded=True):
        columns = st.columns(1 if is_present() else 2)  # a projector: full-size, one a row
        for k, f in enumerate(ex.formulas):
            columns[k % len(columns)].latex(f.latex)
    if ex.exp_table:
        st.markdown("**Powers of e** (given; not every one is needed)")
        columns = st.columns(4)
        for k, m in enumerate(exp_table_math(ex.exp_table)):
            columns[k % 4].latex(m.latex)


def _more_hint(key):
    st.session_state[HINTS + key] = st.session_state.get(HINTS + key, 0) + 1


def show_blank(k, blank):
    """One blank: its name, the box, right or wrong at once, and its hints one at a time.
    Returns True when the box holds a right answer."""
    state = st.session_state
    name, box, verdict_col = st.columns([3, 2, 5], vertical_alignment="center")
    name.markdown(f"**{k}.** ${blank.name.latex} =$")
    typed = state.setdefault(TYPED, {})
    if ANSWER + blank.key not in state and blank.key in typed:  # back from another page
        state[ANSWER + blank.key] = typed[blank.key]
    text = box.text_input(
        f"Answer {k}",
        key=ANSWER + blank.key,
        label_visibility="collapsed",
        placeholder="a number",
        max_chars=MAX_ANSWER_CHARS,
    )
    typed[blank.key] = text
    verdict = check(blank.expected, blank.tolerance, text)
    if verdict.state == "right":
        verdict_col.markdown(f":green[✓ {md_escape(verdict.message)}]")
    elif verdict.state == "wrong":
        verdict_col.markdown(f":red[✗ {md_escape(verdict.message)}]")
    elif verdict.state == "unreadable":
        verdict_col.markdown(f":orange[? {md_escape(verdict.message)}]")
    else:
        verdict_col.caption(md_escape(f"Counts as right {blank.tolerance.describe()}."))
    if verdict.note:
        verdict_col.caption(md_escape(verdict.note))
    shown = min(state.get(HINTS + blank.key, 0), len(blank.hints))
    for hint in blank.hints[:shown]:
        st.markdown(f"💡 {segments_markdown(hint)}")
    tried = verdict.state in ("wrong", "unreadable") or shown  # a wrong answer offers hints
    if tried and not verdict.right and shown < len(blank.hints):
        st.button(
            f"Hint {shown + 1} of {len(blank.hints)}",
            key=f"ex_hint_{blank.key}",
            on_click=_more_hint,
            args=(blank.key,),
            type="tertiary",
        )
    return verdict.right


def show_blanks(ex):
    """Every blank, then the score."""
    st.markdown(
        "Type each answer and press Enter: it is checked at once, within the tolerance beside "
        "it. A wrong answer offers hints, one step at a time (never the answer itself)."
    )
    right = sum(show_blank(k, b) for k, b in enumerate(ex.blanks, start=1))
    total = len(ex.blanks)
    st.progress(right / total, text=f"Score: {right} of {total} right")
    if right == total:
        st.success(f"All {total} right. Try the next level, or press New exercise.", icon="🎉")
    return right


def show_key(ex):
    """The worked answers, as on the key's page of the PDF (the inspectors' sums)."""
    with st.expander("The answer key (every step worked)"):
        for k, b in enumerate(ex.blanks, start=1):
            st.latex(rf"\text{{{k}.}}\quad {b.working.latex}")


def inspect_link(ex):
    """A link to Your own numbers with this exercise's X and weights, every cell inspectable
    there. In a new tab (a new session), so that page reads the matrices from the link even
    when this session has been there before."""
    r = ex.result
    query = {
        name: format_matrix(M, row_sep=";", entry_sep=",")
        for name, M in (("X", r.X), ("W_Q", r.W_Q), ("W_K", r.W_K), ("W_V", r.W_V))
    }
    query |= {"mask": "causal" if r.mask is not None else "none", "scale": "on"}
    query |= {"temperature": "1", "positions": "off"}
    st.markdown(
        f"[See every step of these numbers, with the cell inspectors, on Your own numbers ↗]"
        f"(Your_own_numbers?{urlencode(query)})"
    )


# Each PDF is heavy work in the visitor's turn (attnviz/serve/gate.py): (what, CPU seconds)
WORKSHEET = ("a worksheet's PDF", PDF_SECONDS / 4)
CLASS_SET = ("a class set's PDF", PDF_SECONDS)


def downloads(choice):
    """The worksheet, the cheat sheet and a class set, each made on click from the choice."""
    level, seed, exp_given = choice.level, choice.seed, choice.exp_given
    left, right = st.columns(2)
    left.download_button(
        "⬇ Download worksheet (PDF)",
        data=deferred(functools.partial(worksheet_pdf, level, seed, exp_given), *WORKSHEET),
        file_name=pdf_name("worksheet", level, seed, exp_given),
        mime="application/pdf",
        key="ex_pdf",
        on_click="ignore",
        help="This exercise with blanks and room to write, the formulas, and a second page: "
        "the answer key with every step worked.",
    )
    right.download_button(
        "⬇ Cheat sheet: the Summary on one page (PDF)",
        data=deferred(functools.partial(cheat_sheet_pdf, level, seed, exp_given), *WORKSHEET),
        file_name=pdf_name("cheat-sheet", level, seed),
        mime="application/pdf",
        key="ex_cheat_pdf",
        on_click="ignore",
        help="The course module's Summary: each concept from X to the output with its "
        "formula, its shape (with this exercise's sizes) and what it means.",
    )
    st.markdown(
        "**A class set**: one worksheet per student, each its own seed, then a one-page marking "
        "grid (each seed's answers) and the keys at the end."
    )
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    state = st.session_state
    if CLASS_N not in state:  # a new session, or back from another page
        state[CLASS_N] = state.get(CLASS_KEPT, DEFAULT_CLASS)
    count = left.number_input(f"Students (1 to {MAX_CLASS_SET})", 1, MAX_CLASS_SET, key=CLASS_N)
    state[CLASS_KEPT] = count
    last = (seed + count - 1) % (MAX_SEED + 1)
    right.download_button(
        f"⬇ Class set of {count} (PDF)",
        data=deferred(functools.partial(class_set_pdf, level, seed, count, exp_given), *CLASS_SET),
        file_name=pdf_name("class-set", level, seed, exp_given, last),
        mime="application/pdf",
        key="ex_class_pdf",
        on_click="ignore",
    )
    st.caption(
        f"Seeds {seed} to {last}, level {level}: {count} worksheets, then their {count} keys, "
        "several to a page."
        + (
            f" {MAX_CLASS_SET} is the most one PDF holds: for a larger class, download a "
            f"second set starting at seed {(last + 1) % (MAX_SEED + 1)}."
            if count >= MAX_CLASS_SET
            else f" At most {MAX_CLASS_SET} in one PDF."
        )
    )
