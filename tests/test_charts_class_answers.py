"""The class's answers as bars: one bar per option with its count, the right one green and
ticked, the options' text escaped in the hover."""

import numpy as np
import pytest

from attnviz.charts.class_answers import OTHER_COLOUR, RIGHT_COLOUR, answer_bars


def test_bars_hold_the_counts_and_mark_the_right_answer():
    fig = answer_bars(["A", "B", "C"], ["6 × 4", "<b>x</b>", "4 × 6"], [2, 0, 5], right=1)
    bar = fig.data[0]
    np.testing.assert_array_equal(bar.y, [2, 0, 5])
    assert list(bar.text) == ["2", "0", "5"]
    assert list(bar.marker.color) == [OTHER_COLOUR, RIGHT_COLOUR, OTHER_COLOUR]
    assert list(fig.layout.xaxis.ticktext) == ["A", "B ✓", "C"]
    assert bar.customdata[1] == "&lt;b&gt;x&lt;/b&gt;"  # shown as typed, never bold
    assert fig.layout.title.text == "The class: 7 answers; B is right"


def test_before_the_reveal_no_answer_is_marked():
    fig = answer_bars(["A", "B"], ["yes", "no"], [1, 0])
    assert set(fig.data[0].marker.color) == {OTHER_COLOUR}
    assert fig.layout.title.text == "The class: 1 answer"
    with pytest.raises(ValueError, match="2 letters and 2 options for 3 counts"):
        answer_bars(["A", "B"], ["yes", "no"], [1, 0, 0])
