"""The paired bars: each trace holds its row exactly, over escaped labels."""

import json

import numpy as np
import pytest

from attnviz.charts.paired_bars import paired_bars
from tests.helpers import decode


def test_bars_hold_both_rows_over_escaped_labels():
    labels = ["[CLS]", "<b>it</b>", "tired / wide", "[SEP]"]
    first, second = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]
    spec = json.loads(paired_bars(first, second, labels, names=("a <i>", "b")).to_json())
    one, two = spec["data"]
    assert (one["name"], two["name"]) == ("a &lt;i&gt;", "b")
    np.testing.assert_array_equal(decode(one["y"]).astype(float), first)
    np.testing.assert_array_equal(decode(two["y"]).astype(float), second)
    ticks = spec["layout"]["xaxis"]["ticktext"]
    assert ticks[1] == "&lt;b&gt;it&lt;/b&gt;" and not any("<" in t for t in ticks)
    assert "<b>" not in one["hovertemplate"] and "it" not in one["hovertemplate"]
    assert spec["layout"]["yaxis"]["range"] == [0, 1]


def test_rows_must_match_the_labels():
    with pytest.raises(ValueError, match="one value per label"):
        paired_bars([0.5, 0.5], [1.0], ["a", "b"], names=("x", "y"))
