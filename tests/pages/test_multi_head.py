"""The Multi-head page: every head, the hand-built head, concat and W_O, against the core."""

import numpy as np
import pytest

import attnviz
from attnviz import Settings, multi_head_attention
from attnviz.lessons.hand_built_heads import PRESETS, multi_head_weights
from tests.helpers import (
    assert_drawn,
    assert_lines_drawn,
    chart_specs,
    heatmap_z,
    run,
    set_widget,
    texts,
    traces_z,
)

MH = "app_pages/Multi_head.py"


TOL = {"rtol": 0, "atol": 1e-12}


POSITIONS = {"positions": "on"}


def expected_heads(settings=None, h=2, d_k=None, d_v=None, head=None, W_head=None):
    """multi_head_attention for the page's settings, computed here from the package's parts."""
    ex = attnviz.compute(settings or Settings())
    r = ex.result
    W_Q, W_K, W_V, W_O = multi_head_weights(r.d_model, h, ex.settings.seed, d_k=d_k, d_v=d_v)
    if head is not None:
        width = W_Q.shape[1] // h
        W_Q, W_K = W_Q.copy(), W_K.copy()
        W_Q[:, head * width : (head + 1) * width] = W_head[0]
        W_K[:, head * width : (head + 1) * width] = W_head[1]
    return multi_head_attention(
        r.X,
        W_Q,
        W_K,
        W_V,
        W_O,
        n_heads=h,
        mask=r.mask,
        scale=ex.settings.scale,
        temperature=ex.settings.temperature,
    )


def assert_page_matches(at, mh):
    specs = chart_specs(at)
    grid = traces_z(specs["mh_grid"])
    assert len(grid) == mh.n_heads
    for k, z in enumerate(grid):
        assert_drawn(z, mh.heads[k].attention, err_msg=f"head {k}")
    assert_drawn(heatmap_z(specs["mh_concat"]), mh.concat)
    assert_drawn(heatmap_z(specs["mh_W_O"]), mh.W_O)
    assert_drawn(heatmap_z(specs["mh_output"]), mh.output)


def test_multi_head_default_draws_every_head_concat_w_o_and_output():
    at = run(MH)
    assert not at.error
    mh = expected_heads()
    assert_page_matches(at, mh)
    specs = chart_specs(at)
    # head 0 is the single head of the other pages: the same weights, the same A
    assert_drawn(traces_z(specs["mh_grid"])[0], attnviz.compute(Settings()).result.attention)
    labels = ["the (1)", "cat", "sat", "on", "the (2)", "mat"]
    assert specs["mh_grid"]["layout"]["yaxis"]["ticktext"] == labels
    assert specs["mh_grid"]["layout"]["yaxis"]["autorange"] == "reversed"
    assert heatmap_z(specs["mh_output"]).shape == (6, 8)
    assert [m.value for m in at.metric] == ["4", "4"]  # d_k, d_v = 8 / 2
    assert "Head 0 has exactly the single head's weights" in texts(at, "caption")
    # the open head (0) step by step, with the inspector
    for key, M in {
        "mh_head_Q": mh.heads[0].Q,
        "mh_head_K": mh.heads[0].K,
        "mh_head_S": mh.heads[0].scores,
        "mh_head_A": mh.heads[0].attention,
        "mh_head_out": mh.heads[0].output,
    }.items():
        assert_drawn(heatmap_z(specs[key]), M, err_msg=key)
    assert "Click a cell of S, S' or A" in texts(at, "caption")  # the inspector, not yet used
    at.selectbox(key="attnviz_inspect_j").set_value(1).run()
    assert "S_{0,1} &= " in texts(at, "latex")


def test_why_heads_uses_the_current_numbers():
    at = run(MH)
    mh = expected_heads()
    tops = mh.attention.argmax(axis=2)  # (h, n)
    differ = int(np.sum(tops[0] != tops[1]))
    assert f"the heads pick different top keys in **{differ} rows**" in texts(at)
    table = at.dataframe[0].value
    for k in range(2):
        previous = int(np.sum(tops[k, 1:] == np.arange(5)))
        assert table.loc[f"head {k}", "largest weight on the previous token"] == f"{previous} of 5"
        mean = mh.heads[k].attention.max(axis=1).mean()
        assert table.loc[f"head {k}", "mean largest weight"] == f"{mean:.2f}"


def test_number_of_heads_changes_widths_and_grid():
    at = set_widget(run(MH), "number_input", "mh_heads", 4)
    mh = expected_heads(h=4)
    assert_page_matches(at, mh)
    assert heatmap_z(chart_specs(at)["mh_head_Q"]).shape == (6, 2)
    assert [m.value for m in at.metric] == ["2", "2"]
    assert "Head 0 has exactly" not in texts(at, "caption")  # d_k = 2, the sidebar's is 4


def test_one_head_says_so():
    at = set_widget(run(MH), "number_input", "mh_heads", 1)
    assert_page_matches(at, expected_heads(h=1))
    assert "With **h = 1** there is one rule only" in texts(at)


def test_heads_that_do_not_divide_d_model_are_explained():
    at = set_widget(run(MH), "number_input", "mh_heads", 3)
    assert "h = 3 does not divide d_model = 8" in at.error[0].value
    assert "1, 2, 4, 8" in at.error[0].value
    assert not at.get("plotly_chart")


def test_free_widths():
    at = set_widget(run(MH), "toggle", "mh_split", False)
    assert_page_matches(at, expected_heads(d_k=4, d_v=4))  # start from the sidebar's d_k, d_v
    at = set_widget(at, "number_input", "mh_d_k", 3)
    at = set_widget(at, "number_input", "mh_d_v", 5)
    mh = expected_heads(d_k=3, d_v=5)
    assert_page_matches(at, mh)
    assert heatmap_z(chart_specs(at)["mh_concat"]).shape == (6, 10)
    assert heatmap_z(chart_specs(at)["mh_head_K"]).shape == (6, 3)
    at = set_widget(at, "number_input", "mh_d_k", 300)  # 2 heads x 300 > 512
    assert "n_heads * d_k must be <= 512" in at.error[0].value


@pytest.mark.parametrize("name", PRESETS)
def test_preset_produces_the_pattern_it_names(name):
    """The wiring, one link a preset (its title is the page's); that each preset attends where
    its name says on every kind of input is test_hand_built_heads.py's (pure, 97 cases)."""
    query = {**POSITIONS, "mask": "causal", "tokens": "a b a b c a"}
    at = run(MH, query)
    at = set_widget(at, "selectbox", "mh_build_head", 1)
    at = set_widget(at, "radio", "mh_build", name)
    assert not at.error
    settings, _ = attnviz.from_query(query)
    ex = attnviz.compute(settings)
    W_head = PRESETS[name][0](ex.E, ex.P, 4)
    mh = expected_heads(settings, head=1, W_head=W_head)
    assert_page_matches(at, mh)
    A = traces_z(chart_specs(at)["mh_grid"])[1]
    assert_drawn(heatmap_z(chart_specs(at)["mh_built_A"]), A)
    n = A.shape[0]
    rows = np.arange(n)
    if name == "previous":
        rows, keys = rows[1:], rows[1:] - 1
    else:
        keys = rows if name == "same" else np.zeros(n, int)
    np.testing.assert_array_equal(A[rows].argmax(axis=1), keys)  # the pattern, seen on the page
    assert f"**{rows.size} of {rows.size} rows**" in at.success[0].value
    title = chart_specs(at)["mh_grid"]["layout"]["annotations"][1]["text"]
    assert title == f"head 1 · {name} token"


def test_preset_without_positions_explains_and_keeps_the_seeded_head():
    at = set_widget(run(MH), "radio", "mh_build", "previous")
    assert "Add positional encoding" in at.error[0].value
    assert "positions" in at.error[0].value
    assert_page_matches(at, expected_heads())  # the rest keeps working, head 0 still seeded


def test_preset_with_more_tokens_than_d_model_explains():
    at = run(MH, {**POSITIONS, "tokens": "a b c d e f g h i"})
    at = set_widget(at, "radio", "mh_build", "same")
    assert "raise d_model to 9" in at.error[0].value
    assert chart_specs(at)["mh_grid"]


def test_preset_with_one_wide_heads_suggests_fewer_heads():
    at = set_widget(run(MH, POSITIONS), "number_input", "mh_heads", 8)  # d_k = 1
    at = set_widget(at, "radio", "mh_build", "first")
    assert "d_k >= 2" in at.error[0].value and "fewer heads" in at.error[0].value


def test_previous_preset_with_one_token_has_nothing_to_show():
    at = run(MH, {**POSITIONS, "tokens": "alone"})
    at = set_widget(at, "radio", "mh_build", "previous")
    assert any("With one token there is no previous token" in i.value for i in at.info)
    assert traces_z(chart_specs(at)["mh_grid"])[0].shape == (1, 1)


def editor_keys(at):
    keys = [e.key for e in at.data_editor]
    assert len(keys) == 2 and "W_Q" in keys[0] and "W_K" in keys[1], keys
    return keys


def edit(at, key, edited_rows=None, deleted_rows=()):
    at.session_state[key] = {
        "edited_rows": edited_rows or {},
        "added_rows": [],
        "deleted_rows": list(deleted_rows),
    }
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_edit_tables_start_from_the_head_weights():
    at = set_widget(run(MH), "toggle", "mh_edit", True)
    W_Q, W_K, _, _ = multi_head_weights(8, 2, 0)
    np.testing.assert_array_equal(at.data_editor[0].value.to_numpy(), W_Q[:, :4])
    np.testing.assert_array_equal(at.data_editor[1].value.to_numpy(), W_K[:, :4])


def test_edited_weights_change_the_head():
    at = set_widget(run(MH), "toggle", "mh_edit", True)
    key_Q, _ = editor_keys(at)
    zero_rows = {r: {f"c{c}": 0.0 for c in range(4)} for r in range(8)}
    at = edit(at, key_Q, zero_rows)  # W_Q = 0: every score 0, every weight 1/n
    assert not at.error
    _, W_K, _, _ = multi_head_weights(8, 2, 0)
    mh = expected_heads(head=0, W_head=(np.zeros((8, 4)), W_K[:, :4]))
    assert_page_matches(at, mh)
    assert_drawn(traces_z(chart_specs(at)["mh_grid"])[0], np.full((6, 6), 1 / 6))
    assert any("Your edits changed 32 weights of W_Q and 0 of W_K" in i.value for i in at.info)
    assert chart_specs(at)["mh_grid"]["layout"]["annotations"][0]["text"] == "head 0 · edited"
    at.button(key="mh_edit_reset").click()
    at.run()
    assert_page_matches(at, expected_heads())  # back to the seeded weights


def test_edits_on_a_preset_start_from_the_preset():
    at = run(MH, POSITIONS)
    at = set_widget(at, "radio", "mh_build", "same")
    at = set_widget(at, "toggle", "mh_edit", True)
    ex = attnviz.compute(Settings(positions=True))
    W_Q_h, W_K_h = PRESETS["same"][0](ex.E, ex.P, 4)
    np.testing.assert_allclose(at.data_editor[0].value.to_numpy(), W_Q_h, **TOL)
    _, key_K = editor_keys(at)
    at = edit(at, key_K, {3: {"c1": 2.5}})
    W_K_h = W_K_h.copy()
    W_K_h[3, 1] = 2.5
    assert_page_matches(at, expected_heads(Settings(positions=True), head=0, W_head=(W_Q_h, W_K_h)))
    assert any("changed 0 weights of W_Q and 1 of W_K" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"edited_rows": {2: {"c1": None}}}, "W_Q of head 0 has an empty cell at row 2, column 1"),
        ({"edited_rows": {0: {"c3": "abc"}}}, "W_Q of head 0 has an empty cell at row 0, column 3"),
        ({"deleted_rows": [0]}, r"W_Q of head 0 must have shape (8, 4)"),
    ],
    ids=["empty", "text", "deleted-row"],
)
def test_bad_edits_give_a_message_and_the_rest_keeps_working(change, message):
    at = set_widget(run(MH), "toggle", "mh_edit", True)
    key_Q, key_K = editor_keys(at)
    at = edit(at, key_K, {0: {"c0": 1.0}})  # a good edit of W_K ...
    at = edit(at, key_Q, **change)  # ... and a bad one of W_Q
    assert message in at.error[0].value
    assert "head 0 uses W_Q as it was" in at.error[0].value
    W_Q, W_K, _, _ = multi_head_weights(8, 2, 0)
    W_K_h = W_K[:, :4].copy()
    W_K_h[0, 0] = 1.0
    assert_page_matches(at, expected_heads(head=0, W_head=(W_Q[:, :4], W_K_h)))


def test_huge_edits_that_overflow_fall_back_with_a_message():
    at = set_widget(run(MH), "toggle", "mh_edit", True)
    huge = {r: {f"c{c}": 1e200 for c in range(4)} for r in range(8)}
    for key in editor_keys(at):
        at = edit(at, key, huge)  # q . k ~ 1e400: beyond float64
    assert "cannot be computed" in at.error[0].value and "overflow" in at.error[0].value
    assert_page_matches(at, expected_heads())


def test_tables_too_big_to_edit_by_hand_are_refused_with_a_message():
    at = run(MH, {"d_model": "128"})
    at = set_widget(at, "number_input", "mh_heads", 1)  # W_Q of the head: 128 x 128
    at = set_widget(at, "toggle", "mh_edit", True)
    assert "too many to edit by hand (at most 4096)" in at.warning[0].value
    assert not at.data_editor
    assert_page_matches(at, expected_heads(Settings(d_model=128), h=1))


def test_open_another_head_and_inspect_it():
    at = set_widget(run(MH), "selectbox", "mh_open", 1)
    mh = expected_heads()
    r = mh.heads[1]
    assert_drawn(heatmap_z(chart_specs(at)["mh_head_A"]), r.attention)
    at.selectbox(key="attnviz_inspect_i").set_value(2)
    at.selectbox(key="attnviz_inspect_j").set_value(4)
    at.run()
    latex = texts(at, "latex")
    assert f"{r.scores[2, 4]:.6g}" in latex and f"{r.attention[2, 4]:.6g}" in latex
    assert "W_Q and W_K columns 4 to 7" in texts(at)


def test_the_opened_heads_a_switches_to_token_lines():
    at = set_widget(run(MH, mask="causal"), "selectbox", "mh_open", 1)
    at = set_widget(at, "segmented_control", "mh_head_A_view", "Token lines")
    specs = chart_specs(at)
    assert "mh_head_A" not in specs
    r = expected_heads(Settings(mask="causal")).heads[1]
    lines = assert_lines_drawn(specs["mh_head_A_lines"], r.attention, mask=r.mask)
    assert lines and all(j <= i for i, j in lines)
    assert "mh_head_S" in specs  # the scores beside it stay a heatmap


def test_fewer_heads_reset_stale_head_choices():
    at = set_widget(run(MH), "number_input", "mh_heads", 4)
    at = set_widget(at, "selectbox", "mh_open", 3)
    at = set_widget(at, "selectbox", "mh_build_head", 3)
    at = set_widget(at, "number_input", "mh_heads", 2)
    assert at.selectbox(key="mh_open").value == 0
    assert at.selectbox(key="mh_build_head").value == 0


@pytest.mark.parametrize(
    "widgets",
    [
        {"text": "a b a b c", "d_k": 3, "mask": "causal", "scale": False, "temperature": 2.0},
        {"text": "one"},
        {"generated": True},
    ],
    ids=["repeats-d_k-causal-scale-off", "one-token", "generated"],
)
def test_multi_head_with_changed_settings(widgets):
    at = run(MH, **widgets)
    assert not at.error
    mh = expected_heads(Settings(**widgets))
    assert_page_matches(at, mh)
    if widgets.get("mask") == "causal":
        for z in traces_z(chart_specs(at)["mh_grid"]):
            assert np.all(np.triu(z, 1) == 0)


def test_markup_tokens_are_escaped_on_the_multi_head_page():
    at = run(MH, text="<b>x</b> %{z} **y**")
    spec = chart_specs(at)["mh_grid"]
    assert spec["layout"]["yaxis"]["ticktext"] == ["&lt;b&gt;x&lt;/b&gt;", "%{z}", "**y**"]
    markdown = texts(at)
    assert "<b>x</b>" not in markdown and " **y**" not in markdown
    assert any(t in markdown for t in (r"\<b\>x\<\/b\>", r"\%\{z\}", r"\*\*y\*\*"))


def test_a_preset_says_it_was_solved_for_this_sentence():
    at = run(MH, {"positions": "on"})
    at = set_widget(at, "selectbox", "mh_build_head", 1)
    at = set_widget(at, "radio", "mh_build", "same")
    said = at.success[0].value
    assert "For this sentence, W_Q and W_K were solved" in said
    assert "Whatever the tokens are" not in said


def test_the_formula_numbers_heads_as_the_page_does():
    at = run(MH)
    formula = next(latex.value for latex in at.latex if "MultiHead" in latex.value)
    assert r"\mathrm{head}_0, \dots, \mathrm{head}_{h-1}" in formula and "i = 0" in formula
    title = chart_specs(at)["mh_grid"]["layout"]["annotations"][0]["text"]
    assert title.startswith("head 0")  # the first head is head 0 in both
