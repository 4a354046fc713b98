"""The home page: the formula and the live attention matrix."""

from tests.helpers import (
    assert_drawn,
    chart_specs,
    expected,
    heatmap_z,
    run,
)


def test_home_shows_formula_and_live_attention():
    at = run("app.py")
    assert any("QK^T" in latex.value for latex in at.latex)
    A = heatmap_z(chart_specs(at)["home_A"])
    assert_drawn(A, expected().result.attention)
    assert "BERT" in " ".join(md.value for md in at.markdown)


def test_a_right_to_left_override_in_a_token_cannot_mirror_the_page():
    # U+202E in a token rendered "(4 tokens)" as "(snekot 4)": it is written out instead.
    at = run("app.py", {"tokens": "abc\u202e def ghi jkl"})
    live = next(md.value for md in at.markdown if "tokens)" in md.value)
    assert "\u202e" not in live and "(4 tokens)" in live
    assert "abc⟨U\\+202E⟩" in live  # written out (markdown-escaped: U\+202E)
    ticks = chart_specs(at)["home_A"]["layout"]["yaxis"]["ticktext"]
    assert ticks[0] == "abc⟨U+202E⟩"
