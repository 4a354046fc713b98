"""The twin tests transfer (W2): it is asked on fresh numbers (the room's sentence with a new
weights' seed, a new question set), and its right option differs from the question's for
every kind but those rounds.SAME_ANSWER_KINDS lists, each with its reason."""

from dataclasses import replace

import pytest

from attnviz import lessons
from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import all_questions, question_of
from attnviz.classroom.room import Room
from attnviz.classroom.rounds import SAME_ANSWER_KINDS, asked, revealed, twin, twin_of
from attnviz.links.shared import settings_query
from attnviz.serve.classroom import question_settings
from attnviz.settings import Settings
from tests.helpers import ROOT

# Every kind is asked on one of these examples (the mask's two kinds need the causal mask,
# the shuffle none)
EXAMPLES = (Settings(), Settings(mask="causal"))


def _question_in(settings, kind):
    def question_in(example_seed, quiz_seed):
        fresh = replace(settings, seed=example_seed)
        return question_of(all_questions(fresh, quiz_seed), kind)

    return question_in


def _asked_kinds():
    for settings in EXAMPLES:
        for quiz_seed in range(3):
            for question in all_questions(settings, quiz_seed):
                yield settings, quiz_seed, question


def test_every_kind_is_asked_on_the_examples_and_listed_kinds_are_kinds():
    assert {q.kind for _, _, q in _asked_kinds()} == set(lessons.KINDS)
    assert set(SAME_ANSWER_KINDS) <= set(lessons.KINDS)


@pytest.mark.parametrize("kind", lessons.KINDS)
def test_the_twin_is_on_fresh_numbers_and_its_right_option_differs_unless_listed(kind):
    for settings, quiz_seed, question in _asked_kinds():
        if question.kind != kind:
            continue
        found = twin_of(settings.seed, quiz_seed, _question_in(settings, kind))
        assert found is not None
        example_seed, twin_seed, twin_question = found
        assert example_seed != settings.seed and twin_seed != quiz_seed  # fresh numbers
        if kind in SAME_ANSWER_KINDS:
            continue
        assert twin_question.answer != question.answer, (kind, quiz_seed, question.text)


@pytest.mark.parametrize("kind", sorted(SAME_ANSWER_KINDS))
def test_a_listed_kind_really_keeps_its_right_option(kind):
    """A kind said to keep its right option does keep it on the fresh examples a twin tries:
    the list is not an excuse for a kind that could differ."""
    answers = set()
    for settings, quiz_seed, question in _asked_kinds():
        if question.kind != kind:
            continue
        question_in = _question_in(settings, kind)
        for k in range(1, 6):
            found = question_in(settings.seed + k, quiz_seed + k)
            answers |= {question.answer} | ({found.answer} if found else set())
    if kind == "scaling_effect":  # only a row that cannot change stays the same
        answers.discard("stay the same")
    assert len(answers) == 1


def test_the_twin_round_asks_on_the_twins_example_the_same_sentence():
    settings = Settings()
    pairs = tuple(settings_query(replace(settings, seed=3)).items())
    settings = replace(settings, seed=3)
    room = Room("ABCDEF", "digest", 0.0, 3600.0, settings=pairs)
    room = revealed(asked(room, 0, "shape", 5))
    assert question_settings(room) == settings
    room = twin(room, 4, 5, 1, example_seed=7)
    assert room.peer.round_no == TWIN
    assert question_settings(room) == replace(settings, seed=7)
    assert question_settings(room).text == settings.text


def test_the_doc_names_every_kind_that_keeps_its_right_option():
    text = (ROOT / "docs/peer_instruction.md").read_text(encoding="utf-8")
    for kind in SAME_ANSWER_KINDS:
        assert f"| `{kind}` |" in text
    assert "peers-4.md" not in text  # W4: no file outside the repository is cited
