"""Exercises for hand computation, checked as the student types, and printed as worksheets.
No Streamlit: the page is ``attnviz/ui/pages/work_it_out.py``.

    draw        (level, seed) -> small exact numbers, kept only if every answer is easy by hand
    blanks      one number to find: the core's value (read through the inspectors' cells),
                its tolerance, its hints one step at a time, the key's worked line
    softmax_blanks  the same for a softmax row: m_i, the powers of e, their sum, A_ij
    exercise    make_exercise(level, seed, exp_given): the givens, formulas and blanks
    answers     read_answer and check: a typed answer, never an exception
    notation    formulas written once, as LaTeX (page) and typst (paper)
    worksheet   the typst source of a worksheet and its key, a class set, the cheat sheet
    pdf         compile that source with typst (imported on first use)
"""

from attnviz.exercises.answers import Reading, Tolerance, Verdict, check, read_answer
from attnviz.exercises.blanks import Blank
from attnviz.exercises.exercise import LEVELS, SOFTMAX_LEVELS, Exercise, make_exercise

__all__ = [
    "LEVELS",
    "SOFTMAX_LEVELS",
    "Blank",
    "Exercise",
    "Reading",
    "Tolerance",
    "Verdict",
    "check",
    "make_exercise",
    "read_answer",
]
