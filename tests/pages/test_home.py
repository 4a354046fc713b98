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
