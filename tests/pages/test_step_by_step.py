"""The Step by step page: every step drawn with its values, the inspectors."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import (
    ROOT,
    STEP,
    TIMEOUT,
    assert_drawn,
    chart_specs,
    expected,
    heatmap_z,
    run,
    run_more,
)


def test_step_page_draws_every_step_with_its_shape_and_values():
    at = run(STEP)
    specs = chart_specs(at)
    r = expected().result
    for key, M in {
        "X": r.X,
        "W_Q": r.W_Q,
        "W_K": r.W_K,
        "W_V": r.W_V,
        "Q": r.Q,
        "K": r.K,
        "V": r.V,
        "S": r.scores,
        "S_scaled": r.scaled_scores,
        "A": r.attention,
        "output": r.output,
    }.items():
        assert_drawn(heatmap_z(specs[key]), M, err_msg=key)
    labels = ["the (1)", "cat", "sat", "on", "the (2)", "mat"]
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == labels
    assert specs["A"]["layout"]["yaxis"]["autorange"] == "reversed"
    latex = " ".join(el.value for el in at.latex)
    for shape in (r"6 \times 8", r"6 \times 4", r"6 \times 6"):
        assert shape in latex
    assert "Row sums:** 1.000, 1.000, 1.000, 1.000, 1.000, 1.000" in " ".join(
        md.value for md in at.markdown
    )


def test_dimension_table_has_the_live_sizes():
    at = run(STEP, d_model=10, d_k=3, d_v=5)
    table = at.dataframe[-1].value
    here = dict(zip(table["matrix"], table["here"], strict=True))
    assert here == {
        "X": "6 × 10",
        "Q": "6 × 3",
        "K": "6 × 3",
        "V": "6 × 5",
        "A": "6 × 6",
        "Output": "6 × 5",
    }


def test_changed_settings_change_the_numbers():
    at = run(STEP, text="a b a b c", d_k=6, mask="causal", scale=False)
    specs = chart_specs(at)
    r = expected(text="a b a b c", d_k=6, mask="causal", scale=False).result
    assert heatmap_z(specs["Q"]).shape == (5, 6)
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == ["a (1)", "b (1)", "a (2)", "b (2)", "c"]
    A = heatmap_z(specs["A"])
    assert_drawn(A, r.attention)
    assert np.all(np.triu(A, 1) == 0)  # causal: no weight on later keys
    np.testing.assert_array_equal(heatmap_z(specs["S_scaled"]), heatmap_z(specs["S"]))  # no scale
    assert "logits" in specs  # the -inf logits are shown when a mask is on
    assert at.query_params["mask"] == "causal" and at.query_params["scale"] == "off"


def table_with(at, column):
    """The one table (DataFrame) of the run that has ``column``."""
    (table,) = [df.value for df in at.dataframe if column in df.value.columns]
    return table


@pytest.mark.parametrize(("L", "i", "c"), [("Q", 0, 0), ("K", 3, 2), ("V", 5, 3)])
def test_projection_inspector_sums_a_row_of_X_times_a_column_of_W(L, i, c):
    at = run(STEP)
    at.radio(key="attnviz_proj_L").set_value(L)
    at.selectbox(key="attnviz_proj_i").set_value(i)
    at.run()
    at.selectbox(key="attnviz_proj_c").set_value(c)
    at.run()
    r = expected().result
    table = table_with(at, "product")
    np.testing.assert_array_equal(table["X_id"], r.X[i])
    np.testing.assert_array_equal(table[f"W_{L}[d, {c}]"], getattr(r, f"W_{L}")[:, c])
    np.testing.assert_allclose(table["product"].sum(), getattr(r, L)[i, c], rtol=1e-12)
    latex = " ".join(el.value for el in at.latex)
    assert f"{L}_{{{i},{c}}}" in latex and f"{getattr(r, L)[i, c]:.6g}" in latex


def test_inspector_shows_the_arithmetic_of_the_chosen_cell():
    at = run(STEP)
    at.selectbox(key="attnviz_inspect_i").set_value(1)
    at.selectbox(key="attnviz_inspect_j").set_value(4)
    at.run()
    r = expected().result
    latex = " ".join(el.value for el in at.latex)
    assert "S_{1,4} &= " in latex and f"{r.scores[1, 4]:.6g}" in latex
    assert f"{r.attention[1, 4]:.6g}" in latex
    products = table_with(at, "q_i × k_j")["q_i × k_j"].to_numpy()
    np.testing.assert_allclose(products.sum(), r.scores[1, 4], rtol=1e-12)


def test_inspector_on_a_masked_cell_says_so():
    at = run(STEP, mask="causal")
    at.selectbox(key="attnviz_inspect_i").set_value(0)
    at.selectbox(key="attnviz_inspect_j").set_value(3)
    at.run()
    assert "masked" in " ".join(el.value for el in at.latex)


def test_output_inspector_sums_weighted_values():
    at = run(STEP)
    at.selectbox(key="attnviz_out_i").set_value(2)
    at.selectbox(key="attnviz_out_c").set_value(3)
    at.run()
    r = expected().result
    table = table_with(at, "A_ij × V_jc")
    np.testing.assert_allclose(table["A_ij × V_jc"].sum(), r.output[2, 3], rtol=1e-12)
    assert f"{r.output[2, 3]:.6g}" in " ".join(el.value for el in at.latex)


def test_inspector_selection_survives_fewer_tokens():
    at = run(STEP)
    at.selectbox(key="attnviz_inspect_i").set_value(5)
    at.run()
    at = run_more(at, text="just two")
    assert at.selectbox(key="attnviz_inspect_i").value == 0


def test_inspector_takes_a_selection_held_as_its_label():
    # What the browser sends back for a selectbox is the text it shows; after the labels
    # changed, one that is no longer an option reaches the page as that text
    at = AppTest.from_file(str(ROOT / STEP), default_timeout=TIMEOUT)
    at.session_state["attnviz_inspect_i"] = "sat"  # still a token: its row
    at.session_state["attnviz_inspect_j"] = "dog"  # gone: the first row
    at.run()
    assert not at.exception
    assert at.selectbox(key="attnviz_inspect_i").value == 2
    assert at.selectbox(key="attnviz_inspect_j").value == 0
    assert any("Query **sat** (row 2) and key **the \\(1\\)**" in m.value for m in at.markdown)
