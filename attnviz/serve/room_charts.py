"""A room's charts and the reveal's plan, the same for the Streamlit page and the light phone
page (attnviz/web/phone): each figure maker is a module-level function of small keys, so that
``serve.finish.kept_chart`` and ``serve.classroom.finished_room_chart`` make and finish it once
for every phone. ``reveal_plan`` decides what a reveal says and draws from the room and its
numbers (``rounds.summary``). No Streamlit.
"""

from dataclasses import dataclass

import pandas as pd

from attnviz.charts.class_answers import answer_bars
from attnviz.charts.line_charts import vector_bars
from attnviz.charts.matrix import matrix_heatmap
from attnviz.charts.transitions import (
    confidence_bars,
    rounds_bars,
    shares_bars,
    transition_chart,
    transition_words,
)
from attnviz.charts.words import figure_text
from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import letter, question_of
from attnviz.classroom.rounds import (
    CONFIDENCE,
    ROUND_NAMES,
    moves_sentence,
    percent,
    sure_but_wrong,
)
from attnviz.serve.classroom import cached_room_questions, room_settings
from attnviz.serve.example import cached_example

ROOM_A_TEXT_PX = 11  # the room's A on a phone: 12 tokens in 390 px


def with_words(fig):
    """(``fig``, its text alternative), as ``charts.finish.finished`` takes them."""
    return fig, figure_text(fig)


def answers_figure(settings, quiz_seed, kind, counts, text_px, height):
    """The class's answers ``counts`` to question ``kind`` as bars, the right one green."""
    question = question_of(cached_room_questions(settings, quiz_seed), kind)
    letters = [letter(k) for k in range(len(question.options))]
    return answer_bars(
        letters, question.options, counts, question.answer_index, text_px=text_px, height=height
    )


def proof_figure(settings, quiz_seed, kind, m):
    """Row ``m`` of the rows of A that prove question ``kind``'s answer, as a bar chart."""
    b = question_of(cached_room_questions(settings, quiz_seed), kind).bars[m]
    return vector_bars(b.values, b.labels, title=b.title, value_name=b.value_name)


def proof_frame(settings, quiz_seed, kind):
    """Question ``kind``'s table as a DataFrame."""
    t = question_of(cached_room_questions(settings, quiz_seed), kind).table
    index = pd.Index(t.index, name=t.index_name)
    return pd.DataFrame(list(t.rows), index=index, columns=list(t.columns))


def room_a_figure(settings):
    """The attention matrix A of the example of ``settings``, small enough for a phone."""
    example = cached_example(settings)
    r = example.result
    return matrix_heatmap(
        r.attention,
        example.labels,
        example.labels,
        title="The room's example: A",
        family="A",
        kind="probability",
        value_name="A_ij",
        mask=r.mask,
        text_px=ROOM_A_TEXT_PX,
    )


def rounds_figure(settings, quiz_seed, kind, counts1, counts2, right, text_px):
    """Round 1 and round 2 of question ``kind`` side by side, with words."""
    question = question_of(cached_room_questions(settings, quiz_seed), kind)
    letters = [letter(k) for k in range(len(question.options))]
    both = [("round 1", counts1), ("round 2", counts2)]
    return with_words(rounds_bars(letters, question.options, both, right, text_px=text_px))


def moves_figure(n_options, moves, right, text_px):
    """Who moved where (``moves`` [(from, to, students)]), with its own words."""
    letters = [letter(k) for k in range(n_options)]
    fig = transition_chart(letters, list(moves), right, text_px=text_px)
    return fig, transition_words(letters, list(moves), right)


def shares_figure(labels, shares, text_px):
    return with_words(shares_bars(list(labels), list(shares), text_px=text_px))


def confidence_figure(table, round_name, text_px):
    bars = confidence_bars(CONFIDENCE, [tuple(row) for row in table], round_name, text_px=text_px)
    return with_words(bars)


def _freeze(value):
    return tuple(tuple(v) if isinstance(v, list | tuple) else v for v in value)


@dataclass(frozen=True)
class RevealPlan:
    """What a reveal says and draws. ``sentences``: (plain text, Markdown) pairs, the same
    words; ``charts``: ("bars", counts, name) for the class's answers to one round (drawn by
    the page at its own height), or (make, args, name) for a figure that comes with its words
    (``finished_room_chart``)."""

    sentences: tuple
    charts: tuple


def reveal_plan(room, summary, text_px, md_escape=str):
    """The RevealPlan of ``room``'s reveal from its ``summary`` (rounds.summary's numbers): one
    vote's bars; with two rounds both rounds side by side and who moved where with its
    sentence; the right share per round (and the twin's); confidence by correctness (sure but
    wrong first). ``md_escape`` writes plain text as Markdown (the page's ``ui.text``)."""
    peer = room.peer
    sentences, charts = [], []
    if peer.round_no == TWIN:
        charts.append(("bars", tuple(summary["twin"]["counts"]), "twin"))
    elif peer.rounds == 2 and "2" in summary:
        moves = _freeze(summary.get("moves", ()))
        counts1, counts2 = tuple(summary["1"]["counts"]), tuple(summary["2"]["counts"])
        said = moves_sentence(moves, peer.right)
        sentences.append((said, md_escape(said)))
        args = (room_settings(room), room.quiz_seed, room.kind, counts1, counts2, peer.right)
        charts.append((rounds_figure, (*args, text_px), "rounds"))
        charts.append((moves_figure, (len(counts1), moves, peer.right, text_px), "moves"))
    else:
        charts.append(("bars", tuple(summary["1"]["counts"]), "dist"))
    names = [n for n in ("1", "2", "twin") if n in summary]
    shares = tuple(summary[n]["right_share"] for n in names)
    last = "twin" if peer.round_no == TWIN else names[-2 if names[-1] == "twin" else -1]
    table = _freeze(summary[last]["confidence"])
    labels = tuple(ROUND_NAMES[TWIN if n == "twin" else int(n)] for n in names)
    conf_round = ROUND_NAMES[TWIN if last == "twin" else int(last)]
    if len(names) > 1:
        said = ", ".join(f"{label} {percent(s)}" for label, s in zip(labels, shares, strict=True))
        sentences.append((f"Right answers: {said}.", f"Right answers: {said}."))
        charts.append((shares_figure, (labels, shares, text_px), "shares"))
    if any(r + w for _, r, w in table):
        wrong = sure_but_wrong(table)
        verb = "was" if wrong == 1 else "were"
        rest = f"{verb} sure and wrong in {conf_round}."
        sentences.append((f"{wrong} {rest}", f"**{wrong}** {rest}"))
        charts.append((confidence_figure, (table, conf_round, text_px), "conf"))
    return RevealPlan(tuple(sentences), tuple(charts))
