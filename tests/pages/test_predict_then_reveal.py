"""Predict, then reveal through Streamlit's AppTest: the questions are the quiz's for the
sidebar's settings, an answer reveals the truth, and tokens reach markdown only escaped."""

from dataclasses import replace

import pytest

import attnviz
from attnviz import lessons
from attnviz.ui.text import md_escape
from tests.helpers import SIDEBAR_CASES, run, text_of

QUIZ = "pages/5_Predict_then_reveal.py"
S0 = attnviz.Settings()


def quiz_of(s, seed):
    example = attnviz.compute(s)
    return lessons.quiz(example.result, example.labels, seed, P=example.P)


@pytest.mark.parametrize("widgets", SIDEBAR_CASES.values(), ids=list(SIDEBAR_CASES))
def test_runs_and_says_what_to_notice(widgets):
    at = run(QUIZ, **widgets)
    assert not at.error and not at.exception
    assert [r for r in at.radio if str(r.key).startswith("attnviz_quiz_")]


def quiz_widgets(at):
    found = []
    for kind in ("radio", "selectbox"):
        found += [w for w in at.get(kind) if str(w.key).startswith("attnviz_quiz_")]
    return sorted(found, key=lambda w: int(str(w.key).rsplit("_", 1)[1]))


def test_quiz_asks_the_core_questions_and_reveals_after_an_answer():
    at = run(QUIZ)
    questions = quiz_of(S0, 0)
    said = text_of(at)
    for q in questions:
        assert md_escape(q.text) in said
    widgets = quiz_widgets(at)
    assert len(widgets) == len(questions)
    assert all(w.value is None for w in widgets)
    assert q.explanation not in said and not at.success
    # answer the first right and the second wrong
    widgets[0].set_value(questions[0].answer)
    wrong = next(o for o in questions[1].options if o != questions[1].answer)
    widgets[1].set_value(wrong)
    at.run()
    assert f"Right: **{md_escape(questions[0].answer)}**" in at.success[0].value
    assert f"the answer is **{md_escape(questions[1].answer)}**" in at.warning[0].value
    said = text_of(at)
    assert md_escape(questions[0].explanation) in said
    assert md_escape(questions[1].explanation) in said
    assert md_escape(questions[2].explanation) not in said
    assert "Score: 1 of 2 answered" in said


def test_new_questions_changes_the_set_and_forgets_the_answers():
    at = run(QUIZ)
    quiz_widgets(at)[0].set_value(quiz_of(S0, 0)[0].answer)
    at.run()
    at.button(key="attnviz_lesson_new_quiz").click()
    at.run()
    questions = quiz_of(S0, 1)
    said = text_of(at)
    assert all(md_escape(q.text) in said for q in questions)
    assert all(w.value is None for w in quiz_widgets(at))
    assert "Question set 1" in said


def test_quiz_is_right_for_changed_settings_and_escapes_tokens():
    widgets = {"text": "*a* <b>b</b> [c](x) d", "mask": "causal", "scale": False}
    at = run(QUIZ, **widgets)
    questions = quiz_of(replace(S0, **widgets), 0)
    said = text_of(at)
    for q in questions:
        assert md_escape(q.text) in said
    for w, q in zip(quiz_widgets(at), questions, strict=True):
        w.set_value(q.answer)
    at.run()
    assert len(at.success) == len(questions) and not at.warning
    # token labels reach markdown only escaped: shown as typed, never as emphasis, HTML, links
    markdown = [el.value for el in at.markdown] + [el.value for el in at.success]
    assert not any("<b>" in m or "*a*" in m or "[c](x)" in m for m in markdown)
    assert any(r"\*a\*" in m for m in markdown)


def test_a_rerun_of_the_quiz_asks_the_cached_questions(monkeypatch):
    # The questions are cached per (settings, question set): answering reruns the page, and the
    # rerun builds no question again.
    from attnviz.ui.pages import predict_then_reveal as module

    calls = []
    real = module.lessons.quiz

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module.lessons, "quiz", counted)
    at = run(QUIZ, seed=4243)  # settings no other test uses: their questions are built
    assert calls
    questions = quiz_of(replace(S0, seed=4243), 0)
    calls.clear()
    quiz_widgets(at)[0].set_value(questions[0].answer)
    at.run()
    assert calls == []
    assert f"Right: **{md_escape(questions[0].answer)}**" in at.success[0].value
