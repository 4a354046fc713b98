"""A room's charts, the same for the Streamlit page and the light phone page (attnviz/web/phone):
each figure maker is a module-level function of small keys, so that ``serve.finish.kept_chart``
and ``serve.classroom.finished_room_chart`` make and finish it once for every phone. What a
reveal says and draws is ``classroom.screens.reveal``'s; ``room_chart`` names the figure of each
of its charts. No Streamlit.
"""

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
from attnviz.classroom.questions import letter, question_of
from attnviz.classroom.rounds import CONFIDENCE
from attnviz.classroom.sections import MovesChart, RoundsBars, SharesChart
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


def room_chart(room, chart, text_px):
    """(the function that makes a reveal's ``chart`` (classroom.sections: RoundsBars,
    MovesChart, SharesChart, ConfidenceChart) with its words, its small arguments), for
    ``serve.classroom.finished_room_chart``; the class's AnswerBars are drawn by the page at
    its own height (``answers_figure``)."""
    if isinstance(chart, RoundsBars):
        counts = (chart.counts1, chart.counts2, chart.right)
        return rounds_figure, (room_settings(room), room.quiz_seed, room.kind, *counts, text_px)
    if isinstance(chart, MovesChart):
        return moves_figure, (chart.n_options, chart.moves, chart.right, text_px)
    if isinstance(chart, SharesChart):
        return shares_figure, (chart.labels, chart.shares, text_px)
    return confidence_figure, (chart.table, chart.round_name, text_px)
