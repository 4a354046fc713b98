"""Predict then reveal through Streamlit's AppTest: the questions are the quiz's for the
sidebar's settings, an answer reveals the truth with the rows and tables the core computed, and
tokens reach markdown only escaped."""

import json
from dataclasses import replace

import numpy as np
import pytest

import attnviz
from attnviz import lessons
from attnviz.ui.text import md_escape
from tests.helpers import SIDEBAR_CASES, chart_specs, count_calls, decode, run, text_of

QUIZ = "app_pages/Predict_then_reveal.py"
S0 = attnviz.Settings()
ROW_OF_A = {"row_sum", "causal_row", "shift", "low_temperature"}  # first chart: the row on screen


def quiz_of(s, seed):
    example = attnviz.compute(s)
    return lessons.quiz(example.result, example.labels, seed, P=example.P)


def quiz_widgets(at):
    found = []
    for kind in ("radio", "selectbox"):
        found += [w for w in at.get(kind) if str(w.key).startswith("attnviz_quiz_")]
    return sorted(found, key=lambda w: int(str(w.key).rsplit("_", 1)[1]))


def wrong_option(q):
    return next(o for o in q.options if o != q.answer)


def bars_drawn(at, k):
    """{m: y values} of the bar charts drawn by question k's reveal."""
    drawn = {}
    for key, spec in chart_specs(at).items():
        if key.startswith(f"quiz_row_{k}_"):
            drawn[int(key.rsplit("_", 1)[1])] = decode(spec["data"][0]["y"]).astype(float)
    return drawn


@pytest.mark.parametrize("widgets", SIDEBAR_CASES.values(), ids=list(SIDEBAR_CASES))
def test_runs_and_asks_the_quiz_of_the_settings(widgets):
    at = run(QUIZ, **widgets)
    assert not at.error and not at.exception
    questions = quiz_of(replace(S0, **widgets), 0)
    assert len(quiz_widgets(at)) == len(questions) >= 3
    said = text_of(at)
    assert all(md_escape(q.text) in said for q in questions)
    revealed = [key for key in chart_specs(at) if key.startswith("quiz_row_")]
    assert not revealed and not at.dataframe  # nothing is revealed before an answer


def test_an_answer_reveals_right_or_wrong_and_why():
    at = run(QUIZ)
    questions = quiz_of(S0, 0)
    said = text_of(at)
    widgets = quiz_widgets(at)
    assert all(w.value is None for w in widgets)
    assert not any(md_escape(q.explanation) in said for q in questions) and not at.success
    # answer the first right and the second wrong
    widgets[0].set_value(questions[0].answer)
    widgets[1].set_value(wrong_option(questions[1]))
    at.run()
    assert len(at.success) == 1 and len(at.warning) == 1
    assert f"Right: **{md_escape(questions[0].answer)}**" in at.success[0].value
    assert f"the answer is **{md_escape(questions[1].answer)}**" in at.warning[0].value
    assert md_escape(wrong_option(questions[1])) in at.warning[0].value
    said = text_of(at)
    assert md_escape(questions[0].explanation) in said
    assert md_escape(questions[1].explanation) in said
    assert md_escape(questions[2].explanation) not in said
    assert "Score: 1 right out of 2 answered" in said


# (settings, question set) pairs that between them ask every kind of question
CASES = [
    (S0, 0),
    (S0, 1),
    (replace(S0, mask="causal"), 0),
    (replace(S0, mask="causal"), 1),
    (replace(S0, positions=True, scale=False), 2),
]


def test_every_kind_reveals_the_numbers_the_core_computes():
    asked = set()
    for s, seed in CASES:
        example = attnviz.compute(s)
        A = example.result.attention  # the core's, independent of the quiz
        questions = quiz_of(s, seed)
        at = run(QUIZ, mask=s.mask, positions=s.positions, scale=s.scale)
        for _ in range(seed):
            at.button(key="attnviz_lesson_new_quiz").click()
            at.run()
        widgets = quiz_widgets(at)
        assert len(widgets) == len(questions)
        for k, (w, q) in enumerate(zip(widgets, questions, strict=True)):
            w.set_value(q.answer if k % 2 == 0 else wrong_option(q))  # right, wrong, right ...
        at.run()
        assert len(at.success) == (len(questions) + 1) // 2
        assert len(at.warning) == len(questions) // 2
        tables = iter(at.dataframe)
        for k, q in enumerate(questions, 1):
            asked.add(q.kind)
            drawn = bars_drawn(at, k)
            assert sorted(drawn) == list(range(len(q.bars))), q.kind
            for m, bars in enumerate(q.bars):
                np.testing.assert_array_equal(drawn[m], bars.values)
            if q.kind in ROW_OF_A:  # the first chart is the row asked about, as on screen
                np.testing.assert_allclose(drawn[0], A[q.row], atol=1e-15, err_msg=q.kind)
            if q.table is not None:
                table = next(tables).value
                assert list(table.columns) == list(q.table.columns)
                assert [tuple(row) for row in table.itertuples(index=False)] == list(q.table.rows)
            if q.kind == "scaling_effect":  # scaled (left) beside unscaled, one is on screen
                other = lessons.reattend(example.result, scale=not s.scale).attention[q.row]
                scaled, unscaled = (A[q.row], other) if s.scale else (other, A[q.row])
                np.testing.assert_allclose(drawn[0], scaled, atol=1e-15)
                np.testing.assert_allclose(drawn[1], unscaled, atol=1e-15)
            if q.kind == "masked_weight":
                assert table["A_ij with the mask"].tolist() == A[q.row].tolist()
            if q.kind == "shuffle":
                assert table["token now"].tolist() == [
                    example.labels[p] for p in table["its old position"]
                ]
        assert next(tables, None) is None
    assert asked == set(lessons.KINDS)


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
    rows = {key: spec for key, spec in chart_specs(at).items() if key.startswith("quiz_row_")}
    assert rows
    for spec in rows.values():  # in the charts, HTML-escaped
        ticks = spec["layout"]["xaxis"]["ticktext"]
        assert "&lt;b&gt;b&lt;/b&gt;" in ticks and "<b>b</b>" not in ticks
    # the options are shown through md_escape too
    for w, q in zip(quiz_widgets(at), questions, strict=True):
        assert list(w.options) == [md_escape(o) for o in q.options]


def test_a_rerun_of_the_quiz_asks_the_cached_questions(monkeypatch):
    # The questions are cached per (settings, question set): answering reruns the page, and the
    # rerun builds no question again.
    from attnviz.serve import predict_then_reveal as module

    calls = count_calls(monkeypatch, module.lessons, ["quiz"])
    at = run(QUIZ, seed=4243)  # settings no other test uses: their questions are built
    assert calls
    questions = quiz_of(replace(S0, seed=4243), 0)
    calls.clear()
    quiz_widgets(at)[0].set_value(questions[0].answer)
    at.run()
    assert calls == []
    assert f"Right: **{md_escape(questions[0].answer)}**" in at.success[0].value


def sketch_key(at):
    return next(b.key for b in at.button if b.key.endswith("_submit"))[: -len("_submit")]


@pytest.mark.parametrize("variant", ["plain", "causal"])
def test_a_sketch_alone_is_checked_against_the_cores_row(variant):
    """A student alone sketches a row (the taps' levels, as the chart's callback keeps them),
    checks it, and sees their sketch over the core's row of A with their distance."""
    from attnviz.classroom.sketch import variant_settings
    from attnviz.lessons import sketch
    from attnviz.ui.sketch import LEVELS

    at = run(QUIZ)
    at.selectbox(key="attnviz_sketch_query").set_value(3)
    at.selectbox(key="attnviz_sketch_variant").set_value(variant)
    at.run()
    key = sketch_key(at)
    allowed = [j <= 3 for j in range(6)] if variant == "causal" else [True] * 6
    drawn = chart_specs(at)[f"{key}_chart_0"]
    assert decode(drawn["data"][0]["x"]).tolist() == [int(a) for a in allowed]  # same for all
    assert len(decode(drawn["data"][1]["x"])) == 6 * sum(allowed)  # a tap target per level
    tap_chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(f"{key}_chart_0"))
    assert json.loads(tap_chart.proto.config)["doubleClickDelay"] == 0  # a quick tap is a tap
    levels = (0, 5, 1, 2, 0, 0)
    at.session_state[LEVELS + key] = levels
    at.run()
    assert "cat **0.62**" in text_of(at)  # 5 / 8, renormalised, said live
    at.button(key=f"{key}_submit").click()
    at.run()
    assert not at.exception
    truth = attnviz.compute(variant_settings(S0, variant)).result.attention[3]  # the core's
    mine = np.array(levels) / sum(levels)
    spec = chart_specs(at)["attnviz_sketch_check"]
    np.testing.assert_allclose(decode(spec["data"][0]["x"]).astype(float), mine)
    np.testing.assert_allclose(decode(spec["data"][1]["x"]).astype(float), truth, atol=1e-12)
    distance = 0.5 * np.abs(mine - truth).sum()
    assert f"Your distance to the true row: {distance:.2f}" in text_of(at).replace("\\", "")
    assert f"{key}_submit" not in [b.key for b in at.button]  # checked: locked
    at.button(key="attnviz_sketch_again").click()
    at.run()
    again = decode(chart_specs(at)[f"{key}_chart_0"]["data"][0]["x"]).tolist()
    assert again == list(sketch.even_levels(allowed))  # a fresh sketch, same for all
    at.session_state[LEVELS + key] = levels
    at.selectbox(key="attnviz_sketch_query").set_value(2)
    at.run()
    assert LEVELS + key not in at.session_state  # the session keeps one sketch, the one shown


def test_the_mask_is_said_and_all_zero_cannot_be_checked():
    from attnviz.ui.sketch import LEVELS

    at = run(QUIZ)
    at.selectbox(key="attnviz_sketch_query").set_value(1)
    at.selectbox(key="attnviz_sketch_variant").set_value("causal")
    at.run()
    key = sketch_key(at)
    assert "hidden by the causal mask" in text_of(at)
    at.session_state[LEVELS + key] = (0, 0, 0, 0, 0, 0)
    at.run()
    assert at.button(key=f"{key}_submit").disabled
    assert "raise at least one bar" in at.warning[0].value


def test_the_clicker_reveals_a_question_then_moves_to_the_next():
    """In projector mode → on a question not answered yet reveals its answer and its proof
    chart (the class answered aloud), then → moves to the next question: no mouse."""
    questions = quiz_of(S0, 0)
    at = run(QUIZ, {"present": "on", "step": "1"})
    assert at.button(key="step_next").label == "Reveal ▶"
    assert not [c for c in chart_specs(at) if c.startswith("quiz_row_1_")]
    at.button(key="step_next").click().run()
    assert f"The answer: **{md_escape(questions[0].answer)}**." in [s.value for s in at.success]
    if questions[0].bars:
        assert "quiz_row_1_0" in chart_specs(at)
    assert at.button(key="step_next").label == "Next ▶"
    at.button(key="step_next").click().run()
    assert at.query_params["step"] == "2"
    assert at.button(key="step_next").label == "Reveal ▶"
