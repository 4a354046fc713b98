"""The Step by step page: every step drawn with its values, the inspectors."""

import html

import numpy as np
import pytest

from attnviz.charts.token_lines import lines_note
from attnviz.ui.inspectors import PICKED
from attnviz.ui.pages.step_by_step import STEP_TITLES
from attnviz.ui.text import md_escape
from tests.helpers import (
    STEP,
    app,
    assert_drawn,
    assert_lines_drawn,
    chart_specs,
    drawn_lines,
    expected,
    heatmap_z,
    outlined,
    run,
    run_more,
    text_of,
)
from tests.reference import attention_steps


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
    assert html.unescape(specs["S_scaled"]["layout"]["title"]["text"]).startswith("S' = S / √d_k")
    latex = " ".join(el.value for el in at.latex)
    for shape in (r"6 \times 8", r"6 \times 4", r"6 \times 6"):
        assert shape in latex
    assert "Row sums:** 1.000, 1.000, 1.000, 1.000, 1.000, 1.000" in " ".join(
        md.value for md in at.markdown
    )


def test_dimension_table_has_the_live_sizes():
    at = run(STEP, d_model=10, d_k=3, d_v=5)
    table = next(md.value for md in at.markdown if md.value.startswith("| | matrix |"))
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.split("\n")]
    assert rows[0] == ["", "matrix", "shape", "here"] and len(rows) == 2 + 6
    here = {row[1]: row[3] for row in rows[2:]}
    assert here == {
        "X": "6 × 10",
        "Q": "6 × 3",
        "K": "6 × 3",
        "V": "6 × 5",
        "A": "6 × 6",
        "Output": "6 × 5",
    }
    summary = next(md.value for md in at.markdown if md.value.startswith("| concept |"))
    assert "| Query weights | $W_Q$ | $d_{model} \\times d_k = 10 \\times 3$ |" in summary
    assert (
        "| Attention output | $\\mathrm{Output} = AV$ | $n \\times d_v = 6 \\times 5$ |" in summary
    )


def test_changed_settings_change_the_numbers():
    at = run(STEP, text="a b a b c", d_k=6, mask="causal", scale=False)
    specs = chart_specs(at)
    r = expected(text="a b a b c", d_k=6, mask="causal", scale=False).result
    assert heatmap_z(specs["Q"]).shape == (5, 6)
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == ["a (1)", "b (1)", "a (2)", "b (2)", "c"]
    A = heatmap_z(specs["A"])
    assert_drawn(A, r.attention, mask=r.mask)
    assert np.isnan(A[np.triu_indices(5, 1)]).all()  # causal: later keys drawn as masked
    S, S_scaled = heatmap_z(specs["S"]), heatmap_z(specs["S_scaled"])
    seen = r.mask  # S' keeps S's numbers where the mask lets a query see a key (no scaling)
    np.testing.assert_array_equal(S_scaled[seen], S[seen])
    assert np.isnan(S_scaled[~seen]).all()  # and is drawn masked elsewhere
    assert "logits" in specs  # the -inf logits are shown when a mask is on
    assert at.query_params["mask"] == "causal" and at.query_params["scale"] == "off"
    # scaling off: S' = S in its title and formula, no division left
    assert html.unescape(specs["S_scaled"]["layout"]["title"]["text"]).startswith(
        "S' = S (scaling off;"
    )
    (six,) = [el.value for el in at.latex if el.value.strip("$\n").startswith("S'")]
    assert "scaling off" in six and "sqrt" not in six.split(r"\qquad")[0]


def table_with(at, column):
    """The one table (DataFrame, in a grid or static) of the run that has ``column``."""
    (table,) = [df.value for df in [*at.dataframe, *at.table] if column in df.value.columns]
    return table


def test_the_inspectors_show_their_arithmetic_once_a_cell_is_picked():
    at = run(STEP)  # nobody has picked a cell: no tables, no inspector's formula
    assert not at.table and "S_{0,0} &= " not in " ".join(el.value for el in at.latex)
    hints = " ".join(el.value for el in at.caption)
    assert "Click a cell of S, S' or A" in hints and "Click a cell of Q, K or V" in hints
    at.selectbox(key="attnviz_inspect_j").set_value(1).run()
    assert "S_{0,1} &= " in " ".join(el.value for el in at.latex)
    assert len(at.table) == 1  # this inspector's only


@pytest.mark.parametrize(("L", "i", "c"), [("Q", 1, 0), ("K", 3, 2), ("V", 5, 3)])
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


def picked(boxes, **widgets):
    """Step by step (its sidebar ``widgets`` set) after one run that sets the inspectors'
    ``boxes`` {key less "attnviz_": value}: {"inspect_i": 1, "inspect_j": 4} picks S[1, 4]."""
    at = run(STEP, **widgets)
    for key, value in boxes.items():
        at.selectbox(key=f"attnviz_{key}").set_value(value)
    return at.run()


def test_inspector_shows_the_arithmetic_of_the_chosen_cell():
    at = picked({"inspect_i": 1, "inspect_j": 4})
    r = expected().result
    latex = " ".join(el.value for el in at.latex)
    assert "S_{1,4} &= " in latex and f"{r.scores[1, 4]:.6g}" in latex
    assert f"{r.attention[1, 4]:.6g}" in latex
    products = table_with(at, "q_i × k_j")["q_i × k_j"].to_numpy()
    np.testing.assert_allclose(products.sum(), r.scores[1, 4], rtol=1e-12)


def test_inspector_on_a_masked_cell_says_so():
    at = picked({"inspect_i": 0, "inspect_j": 3}, mask="causal")
    assert "masked" in " ".join(el.value for el in at.latex)


def test_output_inspector_sums_weighted_values():
    at = picked({"out_i": 2, "out_c": 3})
    r = expected().result
    table = table_with(at, "A_ij × V_jc")
    np.testing.assert_allclose(table["A_ij × V_jc"].sum(), r.output[2, 3], rtol=1e-12)
    assert f"{r.output[2, 3]:.6g}" in " ".join(el.value for el in at.latex)


def test_inspector_selection_survives_fewer_tokens():
    at = run_more(picked({"inspect_i": 5}), text="just two")
    assert at.selectbox(key="attnviz_inspect_i").value == 0


def test_inspector_takes_a_selection_held_as_its_label():
    # What the browser sends back for a selectbox is the text it shows; after the labels
    # changed, one that is no longer an option reaches the page as that text
    at = app(STEP)
    at.session_state["attnviz_inspect_i"] = "sat"  # still a token: its row
    at.session_state["attnviz_inspect_j"] = "dog"  # gone: the first row
    at.session_state[PICKED + "cell"] = True  # as it was when the user picked them
    at.run()
    assert not at.exception
    assert at.selectbox(key="attnviz_inspect_i").value == 2
    assert at.selectbox(key="attnviz_inspect_j").value == 0
    assert any("Query **sat** (row 2) and key **the \\(1\\)**" in m.value for m in at.markdown)


# --- the lesson's text and charts say what is true (the teaching review's section 6) ---------


def test_rows_are_named_for_what_they_are_tokens_queries_keys_values():
    layout = {key: spec["layout"] for key, spec in chart_specs(run(STEP)).items()}
    assert layout["X"]["yaxis"]["title"]["text"].startswith("token")
    assert layout["Q"]["yaxis"]["title"]["text"].startswith("query")
    assert layout["K"]["yaxis"]["title"]["text"].startswith("key")
    assert layout["V"]["yaxis"]["title"]["text"].startswith("value")
    assert layout["A"]["yaxis"]["title"]["text"].startswith("query")
    assert layout["A"]["xaxis"]["title"]["text"].startswith("key")


def test_s_and_s_prime_share_one_colour_range_so_scaling_shows():
    specs = chart_specs(run(STEP))
    r = expected().result
    bound = float(np.abs(r.scores).max())
    for key in ("S", "S_scaled"):
        assert specs[key]["data"][0]["zmax"] == pytest.approx(bound)
        assert specs[key]["data"][0]["zmin"] == pytest.approx(-bound)


def test_a_shows_the_mask_and_the_temperature_in_its_title_and_formula():
    at = run(STEP, {"mask": "causal", "temperature": "0.5"})
    specs = chart_specs(at)
    assert html.unescape(specs["A"]["layout"]["title"]["text"]) == "A = softmax(S' / 0.5 + M)"
    assert any(r"\Big/ 0.5 + M" in latex.value for latex in at.latex)
    masked = [t for t in specs["A"]["data"] if t.get("name", "").startswith("masked")]
    assert masked and masked[0]["showlegend"]  # masked cells are named, drawn grey
    assert specs["A"]["data"][0]["text"][0][1] == ""  # no "0.00" on a masked cell
    plain = chart_specs(run(STEP))["A"]["layout"]["title"]["text"]
    assert html.unescape(plain) == "A = softmax(S')"


def test_the_text_says_a_standard_deviation_grows_like_sqrt_d_k():
    text = text_of(run(STEP))
    assert "the standard deviation of a dot product of d_k terms grows like √d_k" in text
    assert "A dot product of d_k terms grows like" not in text


def test_the_page_says_the_weights_are_random_and_untrained():
    at = run(STEP)
    assert any("random and untrained" in info.value for info in at.info)


def test_the_worked_example_quotes_the_cores_numbers():
    from attnviz import Settings
    from attnviz.lessons.worked_example import TOKENS, worked_example

    r = worked_example()
    text = text_of(run(STEP))
    assert f"= **{r.scores[0, 1]:g}**" in text and f"S(ran, dog) = **{r.scores[1, 0]:g}**" in text
    assert not set(TOKENS) & set(Settings().tokens)  # its vectors are not the sentence's
    assert "(q_dog ≠ k_dog, q_ran ≠ k_ran)" in text  # step 0 shows q and k, no W
    assert f"({r.attention[0, 0]:.3f}, {r.attention[0, 1]:.3f})" in text
    assert f"({r.output[0, 0]:.3f}, {r.output[0, 1]:.3f})" in text
    assert r.scores[0, 1] != r.scores[1, 0]  # the asymmetry the text points out
    assert "S is not symmetric" in text


# --- A as token lines ---------------------------------------------------------------------------


def test_a_switches_to_token_lines_in_its_place_and_back():
    text = "the cat saw the dog"
    at = run(STEP, text=text)
    at.segmented_control(key="A_view").set_value("Token lines").run()
    specs = chart_specs(at)
    r = expected(text=text).result
    assert "A" not in specs  # the lines take the heatmap's place: one chart of A, not two
    lines = assert_lines_drawn(specs["A_lines"], r.attention)
    queries = next(t for t in specs["A_lines"]["data"] if t.get("name") == "queries")
    assert queries["text"] == ["the (1)", "cat", "saw", "the (2)", "dog"]
    assert any(c.value == lines_note(r.attention) for c in at.caption)
    # a token picked in the chart (what a click leaves behind) shows only its lines
    at.session_state["attnviz.lines.A"] = ("query", 3)
    at.run()
    alone = drawn_lines(chart_specs(at)["A_lines"])
    assert set(alone) == {cell for cell in lines if cell[0] == 3} and alone
    assert "Only the lines of query **the \\(2\\)** (row 3)" in text_of(at)
    at.button(key="A_all").click().run()
    assert drawn_lines(chart_specs(at)["A_lines"]) == lines
    assert "Only the lines" not in text_of(at)
    # the choice stays with new settings; switching back draws the heatmap again
    at = run_more(at, d_k=3)
    assert "A_lines" in chart_specs(at) and "A" not in chart_specs(at)
    at.segmented_control(key="A_view").set_value("Heatmap").run()
    assert_drawn(heatmap_z(chart_specs(at)["A"]), expected(text=text, d_k=3).result.attention)


def test_the_view_chosen_for_a_is_kept_across_pages():
    at = run("app.py")
    at.switch_page(STEP)
    at.run().segmented_control(key="A_view").set_value("Token lines").run()
    at.switch_page("app_pages/Why_scale.py")
    at.run()
    at.switch_page(STEP)
    at.run()
    assert not at.exception
    assert "A_lines" in chart_specs(at) and "A" not in chart_specs(at)


def test_token_lines_leave_out_masked_keys():
    at = run(STEP, mask="causal")
    at.segmented_control(key="A_view").set_value("Token lines").run()
    r = expected(mask="causal").result
    lines = assert_lines_drawn(chart_specs(at)["A_lines"], r.attention, mask=r.mask)
    assert all(j <= i for i, j in lines)


# --- projector mode ----------------------------------------------------------------------------


def test_projector_mode_shows_one_step_with_previous_and_next():
    at = run(STEP, {"present": "on", "step": "6"})
    assert next(h.value for h in at.header) == "6. Scaling"
    assert set(chart_specs(at)) == {"S_scaled"}  # one step: its chart only
    assert not at.get("download_button")
    assert chart_specs(at)["S_scaled"]["data"][0]["textfont"]["size"] >= 18
    at.button(key="step_next").click().run()
    assert next(h.value for h in at.header) == "7. Softmax attention matrix A"
    assert at.query_params["step"] == "7"
    at.button(key="step_back").click().run()
    at.button(key="step_back").click().run()
    assert at.query_params["step"] == "5"


def test_the_projectors_step_count_is_the_number_of_steps_the_page_has():
    every = STEP_TITLES  # the steps the page draws in normal mode (the test below checks it)
    at = run(STEP, {"present": "on", "step": str(len(every) - 1)})
    assert next(h.value for h in at.header) == every[-1]
    said = " ".join(md.value for md in at.markdown)
    assert f"**Step by step · Step {len(every)} of {len(every)}: {every[-1]}**" in said
    assert at.button(key="step_next").disabled


def test_projector_mode_off_shows_every_step_and_drops_step_from_the_link():
    at = run(STEP, {"step": "6"})
    assert [h.value for h in at.header if h.value[:1].isdigit()] == list(STEP_TITLES)
    assert {"X", "S", "S_scaled", "A", "output"} <= set(chart_specs(at))
    assert "step" not in at.query_params
    assert chart_specs(at)["A"]["data"][0]["textfont"]["size"] < 18


def test_a_bad_step_in_the_link_is_said_and_replaced():
    raw = "11"  # past the last step; every bad value read_int meets: tests/test_links.py
    at = run(STEP, {"present": "on", "step": raw})
    assert any(f"`step={raw}`" in w.value for w in at.warning)
    assert not at.exception


# --- change one number of X and watch it spread --------------------------------------------------

CHART_FIELDS = {  # chart key -> the step it draws
    "X": "X",
    "Q": "Q",
    "K": "K",
    "V": "V",
    "S": "scores",
    "S_scaled": "scaled_scores",
    "A": "attention",
    "output": "output",
}


def assert_outlines_what_changed(specs, old, new, tol=1e-9):
    for key, field in CHART_FIELDS.items():
        before, after = old[field], new[field]
        moved = np.abs(after - before) > tol * max(1.0, np.abs(before).max())
        np.testing.assert_array_equal(outlined(specs[key]), moved, err_msg=key)
        assert_drawn(heatmap_z(specs[key]), after, err_msg=key)


@pytest.mark.parametrize(("i", "c", "value"), [(2, 1, 3.5), (0, 7, -0.25), (5, 0, 0.0)])
def test_an_edit_of_x_in_the_link_outlines_exactly_the_cells_that_changed(i, c, value):
    r = expected().result
    X = np.array(r.X)
    X[i, c] = value
    at = run(STEP, {"edit": f"{i},{c},{value:g}"})
    weights = (r.W_Q, r.W_K, r.W_V)
    specs, old, new = chart_specs(at), attention_steps(r.X, *weights), attention_steps(X, *weights)
    assert_outlines_what_changed(specs, old, new)
    for key, field in (("S_scaled", "scaled_scores"), ("A", "attention"), ("output", "output")):
        D = heatmap_z(specs[f"{key}_delta"])  # how much: after - before, beside the outline
        np.testing.assert_allclose(D, new[field] - old[field], atol=1e-6, err_msg=key)
    r_, c_ = np.unravel_index(np.argmax(np.abs(new["output"] - old["output"])), r.output.shape)
    assert md_escape(f"the largest moves are at ({r_}, {c_}) = (") in text_of(at)
    assert at.query_params["edit"] == f"{i},{c},{value:g}"
    assert f"You changed X\\[{i}\\, {c}\\]" in text_of(at)


def test_typing_a_new_value_spreads_it_and_one_click_undoes_it():
    at = run(STEP)
    assert not any(spec["layout"].get("shapes") for spec in chart_specs(at).values())
    at.selectbox(key="attnviz_edit_i").set_value(3).run()
    at.selectbox(key="attnviz_edit_c").set_value(2).run()
    at.number_input(key="attnviz_edit_value").set_value(4.0).run()
    assert at.query_params["edit"] == "3,2,4"
    specs = chart_specs(at)
    assert outlined(specs["X"]).sum() == 1 and outlined(specs["X"])[3, 2]
    assert outlined(specs["K"])[3].all() and not outlined(specs["K"])[:3].any()
    assert "how far one number of one token reaches" in text_of(at)
    assert "renormalised as a whole" in text_of(at)
    at.button(key="attnviz_edit_undo_banner").click().run()
    assert "edit" not in at.query_params
    assert not any(spec["layout"].get("shapes") for spec in chart_specs(at).values())
    assert at.number_input(key="attnviz_edit_value").value == expected().result.X[3, 2]


def test_a_bad_edit_in_the_link_is_said_and_x_is_shown_as_computed():
    raw, said = "9,0,1", "X has 6 rows"  # every bad edit: tests/test_page_links.py
    at = run(STEP, {"edit": raw})
    assert any(said in w.value for w in at.warning)
    assert "edit" not in at.query_params
    assert not chart_specs(at)["A"]["layout"].get("shapes")


def test_the_edit_stays_through_the_projectors_steps_and_a_change_of_tokens_that_keeps_it():
    at = run(STEP, {"present": "on", "step": "5", "edit": "1,0,2"})
    assert outlined(chart_specs(at)["S"])[1].all()
    at.button(key="step_next").click().run()
    assert outlined(chart_specs(at)["S_scaled"])[:, 1].all()
    assert at.query_params["edit"] == "1,0,2"
    at = run_more(at, text="a b")  # X still has a row 1 and a column 0: the edit stays
    assert outlined(chart_specs(at)["S_scaled"])[1].all()
    at = run_more(at, text="a")  # no row 1 any more: undone, and said
    assert "edit" not in at.query_params
    assert "was undone" in text_of(at)
