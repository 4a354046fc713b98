"""Peer instruction's charts (attnviz.charts.transitions) as a projector reads them (teaching
review 5): no share axis past 100 %, the confidence levels' names beside their bars on one
line, and each move's count beside its line rather than on it."""

from attnviz.charts.style import PRESENT_TEXT_PX
from attnviz.charts.transitions import confidence_bars, shares_bars, transition_chart
from attnviz.classroom.rounds import CONFIDENCE


def test_the_share_axis_ticks_stop_at_100_percent_with_room_for_a_full_bars_label():
    fig = shares_bars(["round 1", "round 2"], [0.25, 1.0], text_px=PRESENT_TEXT_PX)
    axis = fig.layout.yaxis
    assert max(axis.tickvals) == 100 and axis.range[1] > 100


def test_the_confidence_levels_are_rows_named_on_one_line_with_room_for_their_names():
    table = [(level, 1, 2) for level in range(len(CONFIDENCE))]
    fig = confidence_bars(CONFIDENCE, table, "round 2", text_px=PRESENT_TEXT_PX)
    assert {bar.orientation for bar in fig.data} == {"h"}
    names = list(fig.data[0].y)
    assert names == sorted(CONFIDENCE, key=CONFIDENCE.index, reverse=True)  # the most sure first
    assert not any("<br>" in n for n in names)
    longest = max(len(n) for n in names)
    assert fig.layout.margin.l >= 0.6 * longest * PRESENT_TEXT_PX


def test_each_moves_count_sits_above_its_line_not_on_it():
    moves = [(0, 3, 2), (1, 1, 1), (4, 3, 1)]
    fig = transition_chart(list("ABCDE"), moves, 3, text_px=PRESENT_TEXT_PX)
    widths = [trace.line.width for trace in fig.data]
    for note, width in zip(fig.layout.annotations, widths, strict=True):
        assert note.yanchor == "bottom" and note.yshift > width / 2 and note.bgcolor is None
