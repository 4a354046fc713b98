"""The Work it out page through AppTest: the link's exercise, each answer checked at once,
hints one at a time after a wrong answer, the score, bad input and bad links, New exercise,
and a session that keeps only its choice and typed text."""

import dataclasses
from urllib.parse import parse_qs

import numpy as np

from attnviz.exercises import make_exercise
from attnviz.exercises.exercise import exp_table_math
from attnviz.exercises.notation import shown
from attnviz.links.work_it_out import ExerciseChoice
from attnviz.ui.pages.work_it_out import ANSWER, SEED
from tests.helpers import run, texts

PAGE = "app_pages/Work_it_out.py"


def answer(at, blank, text):
    at.text_input(key=ANSWER + blank.key).input(text)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def markdown(at):
    return texts(at) + " " + texts(at, "caption")


def test_the_link_opens_its_exercise_and_the_url_keeps_it():
    at = run(PAGE, {"ex_level": "2", "ex_seed": "7"})
    ex = make_exercise(2, 7)
    assert not at.warning and not at.error
    assert [w.key for w in at.text_input] == [ANSWER + b.key for b in ex.blanks]
    assert any(f"Level 2: {ex.title}" == h.value for h in at.subheader)
    latex = " ".join(el.value for el in at.latex)
    assert ex.givens[0].matrix.latex in latex  # Q as the sheet prints it
    assert at.query_params["ex_level"] == "2" and at.query_params["ex_seed"] == "7"
    assert f"Score: 0 of {len(ex.blanks)} right" in str(at.get("progress")[0].proto)
    link = next(m.value for m in at.markdown if "Your_own_numbers?" in m.value)
    query = parse_qs(link.split("?", 1)[1].rstrip(")"))
    X = [[float(x) for x in row.split(",")] for row in query["X"][0].split(";")]
    np.testing.assert_array_equal(X, ex.result.X)  # the exercise's own X, to inspect there
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == [
        "⬇ Download worksheet (PDF)",
        "⬇ Cheat sheet: the Summary on one page (PDF)",
        "⬇ Class set of 30 (PDF)",
    ]


def test_right_and_wrong_at_once_then_hints_one_at_a_time():
    at = run(PAGE, {"ex_level": "1", "ex_seed": "3"})
    ex = make_exercise(1, 3)
    first, second = ex.blanks[0], ex.blanks[1]
    assert not [b for b in at.button if b.key.startswith("ex_hint_")]  # no hint before a try
    answer(at, first, shown(first.expected + 1))
    assert "✗ Not yet" in markdown(at)
    hint = at.button(key=f"ex_hint_{first.key}")
    assert hint.label == f"Hint 1 of {len(first.hints)}"
    hint.click()
    at.run()
    hints = [m.value for m in at.markdown if m.value.startswith("💡")]
    assert len(hints) == 1 and first.hints[0][1].latex in hints[0]  # the formula comes first
    assert at.button(key=f"ex_hint_{first.key}").label == f"Hint 2 of {len(first.hints)}"
    answer(at, first, shown(first.expected, 6))
    assert "✓ Right" in markdown(at)
    assert not [b for b in at.button if b.key == f"ex_hint_{first.key}"]  # right: no more hints
    answer(at, second, shown(second.expected, 6))
    assert f"Score: 2 of {len(ex.blanks)} right" in str(at.get("progress")[0].proto)


def test_bad_answers_get_a_message_never_an_error():
    at = run(PAGE, {"ex_level": "3", "ex_seed": "1"})
    ex = make_exercise(3, 1)
    b = next(b for b in ex.blanks if b.key.startswith("O_"))
    for typed, words in (
        ("abc", "is not a number"),
        ("e^2", "is a formula"),
        ("99999999", "far larger"),
        ("1,500", "could be"),
        ("<b>1</b> $x$", "is not a number"),
    ):
        answer(at, b, typed)
        assert words in markdown(at), typed
        assert not at.error and not at.exception
    shown_text = markdown(at)
    assert r"“\<b\>1\<\/b\> \$x\$” is not a number" in shown_text  # typed text is text
    assert "<b>" not in shown_text
    answer(at, b, shown(b.expected, 3).replace(".", ","))
    text = markdown(at)
    assert "✓ Right" in text and "decimal comma" in text


def test_every_right_answer_scores_them_all():
    at = run(PAGE, {"ex_level": "2", "ex_seed": "4", "ex_exp": "given"})
    ex = make_exercise(2, 4, exp_given=True)
    assert not any(b.key.startswith("e_") for b in ex.blanks)
    assert "Powers of e" in markdown(at)
    latex = [el.value.strip("$\n") for el in at.latex]
    assert all(m.latex in latex for m in exp_table_math(ex.exp_table))  # each e^x, as printed
    for b in ex.blanks:
        at.text_input(key=ANSWER + b.key).input(shown(b.expected, 6))
    at.run()
    assert f"All {len(ex.blanks)} right" in " ".join(s.value for s in at.success)


def test_a_bad_link_is_clamped_or_ignored_with_a_warning():
    at = run(PAGE, {"ex_level": "9", "ex_seed": "abc", "ex_exp": "maybe"})
    warning = " ".join(w.value for w in at.warning)
    assert "ex_level=9" in warning and "using 5" in warning
    assert "ex_seed=abc" in warning and "ex_exp=maybe" in warning
    assert at.radio(key="ex_level_pick").value == 5 and at.number_input(key=SEED).value == 0
    assert at.query_params["ex_level"] == "5" and at.query_params["ex_seed"] == "0"


def test_new_exercise_draws_a_new_seed_and_starts_blank():
    at = run(PAGE, {"ex_level": "1", "ex_seed": "3"})
    ex = make_exercise(1, 3)
    answer(at, ex.blanks[0], "1")
    at.button(key="ex_new").click()
    at.run()
    seed = at.number_input(key=SEED).value
    assert at.query_params["ex_seed"] == str(seed)
    assert all(w.value == "" for w in at.text_input)
    at.radio(key="ex_level_pick").set_value(4)
    at.run()
    assert at.query_params["ex_level"] == "4"
    assert [w.key for w in at.text_input] == [ANSWER + b.key for b in make_exercise(4, seed).blanks]


def _holds_an_array(value):
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_an_array(v) for v in value)
    if dataclasses.is_dataclass(value):
        return any(_holds_an_array(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


def test_a_session_keeps_its_choice_and_typed_text_never_arrays():
    at = run(PAGE, {"ex_level": "5", "ex_seed": "2"})
    ex = make_exercise(5, 2)
    answer(at, ex.blanks[0], "7")
    at.button(key=f"ex_hint_{ex.blanks[0].key}").click()
    at.run()
    state = {k: at.session_state[k] for k in at.session_state}
    assert state["ex.choice"] == ExerciseChoice(5, 2, False)
    assert not [k for k, v in state.items() if _holds_an_array(v)]
    assert state[ANSWER + ex.blanks[0].key] == "7"


def test_typed_answers_and_hints_survive_a_visit_to_another_page():
    at = run("app.py")
    at.switch_page(PAGE)
    at.run()
    ex = make_exercise(1, 0)
    answer(at, ex.blanks[0], "2,5")
    at.button(key=f"ex_hint_{ex.blanks[0].key}").click()
    at.run()
    at.switch_page("app_pages/Predict_then_reveal.py")
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    assert at.text_input(key=ANSWER + ex.blanks[0].key).value == "2,5"  # nothing typed is lost
    assert len([m for m in at.markdown if m.value.startswith("💡")]) == 1
