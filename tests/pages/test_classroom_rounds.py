"""Peer instruction through the Classroom page (AppTest, one in-process store): a lecturer runs a
two-round question with three students: round 1 locked with nothing shown, the discussion,
round 2 with each student's first answer shown to them, confidence, the reveal of both rounds
with who moved where and its sentence, the twin, "Look at the projector" and "I'm lost"."""

import numpy as np
import pytest

from attnviz.classroom.questions import all_questions, letter, question_of
from attnviz.classroom.rounds import moves_sentence, transitions
from attnviz.serve.classroom import question_settings, room_settings
from attnviz.ui.pages.classroom_shared import ROOM, room_store
from attnviz.ui.text import md_escape
from tests.helpers import chart_specs, decode, run, text_of
from tests.pages.test_classroom import click

pytestmark = pytest.mark.usefixtures("empty_rooms")

PAGE = "app_pages/Classroom.py"
CLASS_CHARTS = ("dist", "rounds", "moves", "shares", "conf", "twin")


def class_charts(at):
    """The keys of the charts that show the class's answers."""
    return [k for k in chart_specs(at) if k.split("_")[-1] in CLASS_CHARTS]


def test_vote_discuss_revote_reveal_and_the_twin():
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    lecturer.radio(key="cls_rounds").set_value(2).run()
    click(lecturer, "cls_ask")
    code = lecturer.session_state[ROOM]
    room = room_store().room(code)
    assert room.peer.rounds == 2
    question = question_of(all_questions(room_settings(room), room.quiz_seed), room.kind)
    right, m = question.answer_index, len(question.options)
    first = [(right + 1) % m, right, (right + 1) % m]
    second = [right, right, (right + 2) % m]
    students = [run(PAGE, {"room": code}) for _ in first]
    for student, k in zip(students, first, strict=True):
        click(student, f"cls_opt_{k}")
    click(students[0], "cls_conf_2")  # sure (and wrong)
    lecturer.run()
    assert lecturer.button(key="cls_step").label == "End round 1"
    click(lecturer, "cls_step")
    for at in [lecturer, *students]:
        at.run()
        assert not class_charts(at)  # nothing of the class's answers before the reveal
    assert "Round 1 has ended" in text_of(students[0])
    lecturer.radio(key="cls_discuss_min").set_value(2).run()
    click(lecturer, "cls_step")  # Discuss with your neighbour, 2 minutes
    students[1].run()
    assert "Discuss with your neighbour" in text_of(students[1])
    assert "About 2 minutes" in text_of(students[1])
    assert text_of(lecturer).count("Discuss with your neighbour") == 1  # said once (review 5)
    assert not any(b.key.startswith("cls_opt_") for b in students[1].button)
    click(lecturer, "cls_step")  # round 2
    for student, k, again in zip(students, first, second, strict=True):
        student.run()
        assert f"In round 1 you answered **{letter(k)}**" in text_of(student)
        click(student, f"cls_opt_{again}")
    click(students[2], "cls_conf_2")  # sure in round 2, and wrong
    click(students[1], "cls_conf_0")  # guessing, and right
    click(lecturer, "cls_step")  # end round 2
    assert lecturer.button(key="cls_reveal").label == "Reveal"
    click(lecturer, "cls_reveal")
    specs = chart_specs(lecturer)
    bars = specs["cls_lect_rounds"]["data"]
    np.testing.assert_array_equal(decode(bars[0]["y"]), np.bincount(first, minlength=m))
    np.testing.assert_array_equal(decode(bars[1]["y"]), np.bincount(second, minlength=m))
    moves = transitions(dict(enumerate(first)), dict(enumerate(second)))
    assert len(specs["cls_lect_moves"]["data"]) == len(moves)
    sentence = moves_sentence(moves, right)
    assert md_escape(sentence) in text_of(lecturer)
    assert sentence.startswith("2 of 3 changed their answer; 1 moved to the right one")
    assert "**1** was sure and wrong in round 2" in text_of(lecturer)
    conf = specs["cls_lect_conf"]["data"]  # sure, fairly sure, guessing; wrong then right
    assert [list(decode(t["x"])) for t in conf] == [[1, 0, 0], [0, 0, 1]]  # bars along x
    for student, k, again in zip(students, first, second, strict=True):
        student.run()
        assert "cls_rounds" in chart_specs(student) and "cls_moves" in chart_specs(student)
        mark = lambda x: letter(x) + (" ✓" if x == right else " ✗")  # noqa: E731
        assert f"round 1: **{mark(k)}** · round 2: **{mark(again)}**" in text_of(student)
    click(lecturer, "cls_twin")
    twin_room = room_store().room(code)
    twin_on = question_settings(twin_room)  # the twin's fresh numbers: the same sentence
    assert twin_on.text == room_settings(room).text and twin_on.seed != room_settings(room).seed
    twin = question_of(all_questions(twin_on, twin_room.peer.twin_seed), room.kind)
    assert twin_room.peer.twin_seed != room.quiz_seed and twin.kind == room.kind
    for student in students:
        student.run()
        click(student, f"cls_opt_{twin.answer_index}")
    assert lecturer.button(key="cls_reveal").label == "Reveal the twin"
    click(lecturer, "cls_reveal")
    twin_bars = chart_specs(lecturer)["cls_lect_twin"]  # the twin's own options and answer
    taps = np.bincount([twin.answer_index] * len(first), minlength=len(twin.options))
    np.testing.assert_array_equal(decode(twin_bars["data"][0]["y"]), taps)
    assert twin_bars["layout"]["xaxis"]["ticktext"][twin.answer_index].endswith("✓")
    shares = decode(chart_specs(lecturer)["cls_lect_shares"]["data"][0]["y"])
    ones = [sum(x == right for x in first), sum(x == right for x in second), len(first)]
    np.testing.assert_array_equal(shares, np.round(100 * np.array(ones) / len(first)))
    students[2].run()
    assert "the twin: **" + letter(twin.answer_index) + " ✓**" in text_of(students[2])


def test_look_at_the_projector_and_im_lost():
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    click(lecturer, "cls_ask")
    code = lecturer.session_state[ROOM]
    student = run(PAGE, {"room": code})
    click(lecturer, "cls_blank")
    student.run()
    assert "Look at the projector" in text_of(student)
    assert not any(b.key.startswith("cls_opt_") for b in student.button)
    click(student, "cls_lost")
    assert "The lecturer sees that someone is lost (not who)" in text_of(student)
    click(student, "cls_lost")
    assert "Already said in the last minute" in text_of(student)
    lecturer.run()
    assert '"I\'m lost" in the last 2 minutes: **1**' in text_of(lecturer)
    assert "I'm lost" not in text_of(student).replace("😵 I'm lost", "")  # no count for them
    click(lecturer, "cls_blank")
    student.run()
    assert any(b.key.startswith("cls_opt_") for b in student.button)
