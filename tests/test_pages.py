"""Every page through Streamlit's AppTest: default and changed settings, URL, page switches."""

from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attnviz
from attnviz.charts.matrix import MAX_DRAWN, blocks
from attnviz.limits import MAX_TOKENS
from tests.helpers import (
    ALL_SCRIPTS,
    PAGES,
    ROOT,
    STEP,
    TIMEOUT,
    assert_drawn,
    chart_specs,
    heatmap_z,
    run,
    run_more,
    widget_by_key,
)


def expected(**changes):
    return attnviz.compute(attnviz.Settings(**changes))


CHARTLESS = {"pages/5_Predict_then_reveal.py"}  # the quiz draws a chart only with an answer


@pytest.mark.parametrize("script", ALL_SCRIPTS)
def test_every_page_runs_with_default_settings(script):
    at = run(script)
    assert not at.error
    assert at.get("plotly_chart") or script in CHARTLESS, f"{script} draws no chart"
    assert at.query_params["tokens"] == "the cat sat on the mat"


def test_home_shows_formula_and_live_attention():
    at = run("app.py")
    assert any("QK^T" in latex.value for latex in at.latex)
    A = heatmap_z(chart_specs(at)["home_A"])
    assert_drawn(A, expected().result.attention)
    assert "BERT" in " ".join(md.value for md in at.markdown)


def menu(at):
    """[(label, {query parameter: value})] of the sidebar's page links."""
    return [
        (link.proto.label, {k: v[0] for k, v in parse_qs(link.proto.query_string).items()})
        for link in at.sidebar.get("page_link")
    ]


def test_the_sidebar_menu_links_every_page_with_this_runs_settings():
    at = run("app.py", d_k=3, mask="causal")  # changed by widgets in the run that draws it
    labels = ["Home"] + [Path(p).stem.split("_", 1)[1].replace("_", " ") for p in PAGES]
    query = expected(d_k=3, mask="causal").settings.to_query()
    assert menu(at) == [(label, query) for label in labels]
    at.switch_page(STEP)
    at.run()
    assert not at.exception
    assert menu(at) == [(label, query) for label in labels]


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


def test_generated_tokens_and_n_shown():
    at = run_more(run(STEP, generated=True), n=9)
    specs = chart_specs(at)
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == [f"t{i}" for i in range(1, 10)]
    assert "n = 9 tokens" in [c.value for c in at.sidebar.caption]
    assert at.query_params["n"] == "9" and "tokens" not in at.query_params


def test_settings_carry_across_switch_page():
    at = run("app.py", text="one two three", d_k=3, mask="causal")
    at.switch_page(STEP)
    at.run()
    assert not at.exception
    specs = chart_specs(at)
    assert heatmap_z(specs["Q"]).shape == (3, 3)
    r = expected(text="one two three", d_k=3, mask="causal").result
    assert_drawn(heatmap_z(specs["A"]), r.attention)
    assert widget_by_key(at, "attnviz_text").value == "one two three"


def test_url_parameters_are_honoured():
    query = {
        "tokens": "x y z x",
        "d_model": "5",
        "d_k": "2",
        "d_v": "3",
        "seed": "7",
        "mask": "causal",
        "scale": "off",
        "temperature": "0.5",
        "positions": "on",
    }
    at = run(STEP, query)
    settings, warnings = attnviz.from_query(query)
    assert not warnings and not at.warning
    r = attnviz.compute(settings).result
    specs = chart_specs(at)
    assert_drawn(heatmap_z(specs["A"]), r.attention)
    assert_drawn(heatmap_z(specs["X"]), r.X)
    assert widget_by_key(at, "attnviz_temperature").value == 0.5


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ({"d_k": "0"}, "d_k=0"),
        ({"d_model": "100000"}, "d_model=100000"),
        ({"seed": "abc"}, "seed=abc"),
        ({"temperature": "-1"}, "temperature=-1"),
        ({"temperature": "nan"}, "temperature=nan"),
        ({"mask": "diagonal"}, "mask=diagonal"),
        ({"scale": "maybe"}, "scale=maybe"),
        ({"d_K": "9"}, "did you mean `d_k`"),
        ({"mask": "a`**b**`"}, "`mask=a'**b**'` in the link"),  # cannot end the code span
    ],
)
def test_bad_url_values_are_warned_about_not_fatal(query, fragment):
    at = run(STEP, query)
    assert any(fragment in w.value for w in at.warning), [w.value for w in at.warning]
    assert chart_specs(at)["A"]


def test_empty_text_gives_a_message_and_keeps_the_text_box():
    at = run(STEP, text="   ")
    assert any("no tokens" in e.value for e in at.error)
    assert not at.get("plotly_chart")
    assert widget_by_key(at, "attnviz_text").value == "   "


def test_one_hot_with_too_small_d_model_is_explained():
    at = run(STEP, embedding="one-hot", d_model=3)
    assert any("d_model" in e.value and "one-hot" in e.value for e in at.error)


def test_too_many_tokens_are_cut_with_a_warning():
    text = " ".join(f"w{i}" for i in range(MAX_TOKENS + 1))
    at = run("app.py", {"tokens": text})
    assert any(str(MAX_TOKENS) in w.value for w in at.warning)
    spec = chart_specs(at)["home_A"]
    n_drawn = len(blocks(MAX_TOKENS))
    assert heatmap_z(spec).shape == (n_drawn, n_drawn) and n_drawn <= MAX_DRAWN
    assert "mean of a" in spec["layout"]["title"]["text"]


def test_markup_tokens_are_escaped_on_the_page():
    at = run(STEP, text="<b>x</b> %{z} **y**")
    ticks = chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"]
    assert ticks == ["&lt;b&gt;x&lt;/b&gt;", "%{z}", "**y**"]
    inspector = next(md.value for md in at.markdown if "(row " in md.value)
    assert r"**\<b\>x\<\/b\>**" in inspector  # markdown-escaped, shown as typed


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


def test_text_survives_switching_to_generated_tokens_and_back():
    at = run(STEP, text="my own words")
    at = run_more(at, generated=True)
    at = run_more(at, generated=False)
    assert widget_by_key(at, "attnviz_text").value == "my own words"
    ticks = chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"]
    assert ticks == ["my", "own", "words"]


def test_changing_a_widget_updates_the_url():
    at = run(STEP, d_v=7)
    assert at.query_params["d_v"] == "7"
    assert heatmap_z(chart_specs(at)["output"]).shape == (6, 7)
