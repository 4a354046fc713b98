"""The shared link readers (attnviz/links/readers.py): every bad value clamped or ignored, said."""

import pytest

from attnviz.links import quoted, read_choice, read_float, read_int, read_text


def test_read_int_keeps_a_good_value_and_is_silent():
    assert read_int({"d_k": " 7 "}, "d_k", low=1, high=512, default=4) == (7, [])


def test_read_int_without_the_name_gives_the_default_silently():
    assert read_int({}, "d_k", low=1, high=512, default=4) == (4, [])


@pytest.mark.parametrize(
    ("raw", "expected", "said"),
    [("abc", 4, "not a whole number"), ("0", 1, "outside 1 to 512"), ("9" * 4000, 512, "outside")],
)
def test_read_int_bad_values(raw, expected, said):
    value, warnings = read_int({"d_k": raw}, "d_k", low=1, high=512, default=4)
    assert value == expected
    assert len(warnings) == 1 and said in warnings[0]
    assert len(warnings[0]) < 200  # a 4,000-digit value is quoted cut, not in full


def test_a_repeated_parameter_takes_the_last_and_says_so():
    value, warnings = read_int({"d_k": ["2", "3"]}, "d_k", low=1, high=512, default=4)
    assert value == 3
    assert warnings == ["`d_k` appears 2 times in the link: using the last, `3`."]


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "x", ""])
def test_read_float_refuses_what_is_not_a_finite_number(raw):
    value, warnings = read_float({"t": raw}, "t", low=0.01, high=100.0, default=1.0)
    assert value == 1.0 and "not a number" in warnings[0]


def test_read_float_clamps():
    assert read_float({"t": "1e9"}, "t", low=0.01, high=100.0, default=1.0)[0] == 100.0


def test_read_choice_reads_without_case_and_names_the_choices():
    choices = {"on": True, "off": False}
    assert read_choice({"scale": " OFF"}, "scale", choices, True) == (False, [])
    value, warnings = read_choice({"scale": "maybe"}, "scale", choices, True)
    assert value is True
    assert warnings == ["`scale=maybe` in the link is not one of on, off: using on."]


def test_read_text_cuts_and_says_how_long_it_was():
    value, warnings = read_text({"w": "x" * 30}, "w", max_chars=10)
    assert value == "x" * 10 and "30 characters" in warnings[0]


def test_quoted_is_plain_text_and_short():
    assert quoted("a`b\nc") == "a'b c"
    assert quoted("y" * 100).endswith("…") and len(quoted("y" * 100)) == 41
