"""The your-own-numbers page through AppTest: typed, linked and uploaded matrices, the sidebar's
mask, scaling and temperature, and bad input that leaves what was typed in place."""

import io
import re

import numpy as np

import attnviz
from attnviz.files import own_numbers
from attnviz.files.export import all_steps_npz
from attnviz.files.own_numbers import EXERCISE, NAMES, format_matrix
from attnviz.limits import MAX_OWN_N
from attnviz.ui.pages.your_own_numbers import matrices_npz
from attnviz.ui.text import WORD_JOINER
from tests.helpers import STEP, assert_drawn, chart_specs, heatmap_z, outlined, run, run_more
from tests.reference import attention as reference

OWN = "app_pages/Your_own_numbers.py"
BOX = "attnviz_own_"


def box(at, field):
    """The text box (or the labels' text input) of ``field``."""
    kinds = ("text_input",) if field == "labels" else ("text_area",)
    return next(w for kind in kinds for w in at.get(kind) if w.key == BOX + field)


def plain(element):
    """What a message shows: its markdown escapes and invisible word joiners (md_escape)
    removed."""
    return re.sub(r"\\(.)", r"\1", element.value).replace(WORD_JOINER, "")


def type_into(at, **texts):
    for field, text in texts.items():
        box(at, field).set_value(text)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_opens_on_the_integer_exercise_and_links_it():
    at = run(OWN)
    specs = chart_specs(at)
    A, out = reference(*(EXERCISE[name] for name in NAMES))
    np.testing.assert_allclose(heatmap_z(specs["A"]), A, rtol=1e-6)
    np.testing.assert_allclose(heatmap_z(specs["output"]), out, rtol=1e-6)
    assert heatmap_z(specs["S"]).tolist() == [[2, 4, 4], [4, 16, 12], [4, 12, 10]]
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == ["input_1", "input_2", "input_3"]
    assert at.query_params["X"] == "1,0,1,0;0,2,0,2;1,1,1,1"
    assert at.query_params["W_V"] == "0,2,0;0,3,0;1,0,3;1,1,0"
    assert at.query_params["tokens"] == "the cat sat on the mat"  # the sidebar's stay too


def test_typed_numbers_are_used_with_the_sidebars_mask_scaling_and_temperature():
    X = "0.5 -1\n2 0\n1 1\n0 3"
    W = "1 0\n0 1"
    at = run_more(run(OWN), mask="causal", scale=False, temperature=0.5)
    type_into(at, X=X, W_Q=W, W_K="2 1\n0 1", W_V="1\n-1", labels="a b a c")
    specs = chart_specs(at)
    mats = [own_numbers.parse_matrix("m", t) for t in (X, W, "2 1\n0 1", "1\n-1")]
    A, out = reference(*mats, mask=np.tri(4, dtype=bool), temperature=0.5, scale=False)
    assert_drawn(heatmap_z(specs["A"]), A.astype(np.float32), mask=np.tri(4, dtype=bool))
    np.testing.assert_allclose(heatmap_z(specs["output"]), out, rtol=1e-6)
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == ["a (1)", "b", "a (2)", "c"]
    assert at.query_params["X"] == "0.5,-1;2,0;1,1;0,3"
    assert at.query_params["labels"] == "a b a c"
    subheaders = [h.value for h in at.subheader]  # they say what was computed
    assert "S = QKᵀ and S' = S (scaling off)" in subheaders
    assert "A = softmax(S' / 0.5 + M), row by row" in subheaders


def test_bad_entries_are_all_named_and_what_was_typed_stays():
    at = run(OWN)
    type_into(at, X="1 0 1 0\n0 2 oops 2\n1 1 1 1", W_V="1 2\n3")
    errors = plain(at.error[0])
    assert "X, row 2, entry 3: 'oops' is not a number" in errors
    assert "W_V: row 2 has 1 number but row 1 has 2 numbers" in errors
    assert not at.get("plotly_chart")
    assert box(at, "X").value == "1 0 1 0\n0 2 oops 2\n1 1 1 1"  # kept to be fixed
    assert at.query_params["X"] == "1,0,1,0;0,2,0,2;1,1,1,1"  # the link keeps the last good
    type_into(at, X="1 0 1 0\n0 2 5 2\n1 1 1 1", W_V="0 2 0\n0 3 0\n1 0 3\n1 1 0")
    assert not at.error and at.get("plotly_chart")


def test_shapes_that_do_not_fit_get_the_rule():
    at = type_into(run(OWN), W_K="1 0 0\n0 1 0\n0 0 1")
    assert "W_K has 3 rows but X has d_model = 4 columns" in plain(at.error[0])
    at = type_into(at, W_K="1 0\n0 1\n1 1\n0 0")
    assert "W_Q has 3 columns and W_K 2" in plain(at.error[0])


def test_too_many_tokens_names_the_limit():
    at = type_into(run(OWN), X="\n".join(["1 0 1 0"] * (MAX_OWN_N + 1)))
    assert f"at most {MAX_OWN_N} tokens" in plain(at.error[0])


def test_a_token_count_that_differs_numbers_the_rows():
    at = type_into(run(OWN), labels="only two")
    assert chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"] == ["t1", "t2", "t3"]
    assert any("2 tokens for 3 rows" in c.value for c in at.caption)


def test_a_link_with_matrices_opens_them():
    query = {"X": "1,2;3,4", "W_Q": "1;0", "W_K": "0;1", "W_V": "1,0;0,1", "labels": "p q"}
    at = run(OWN, query)
    assert box(at, "X").value == "1,2\n3,4"  # as in the link, rows on lines
    A, _ = reference([[1, 2], [3, 4]], [[1], [0]], [[0], [1]], np.eye(2))
    specs = chart_specs(at)
    np.testing.assert_allclose(heatmap_z(specs["A"]), A, rtol=1e-6)
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == ["p", "q"]
    assert at.query_params["X"] == "1,2;3,4"


def test_a_bad_link_shows_the_problem_and_the_text():
    at = run(OWN, {"X": "1,2;3", "W_Q": "1;0", "W_K": "0;1", "W_V": "1,0;0,1"})
    assert "X: row 2 has 1 number but row 1 has 2 numbers" in plain(at.error[0])
    assert box(at, "X").value == "1,2\n3"


def test_the_sidebars_example_fills_the_boxes_rounded():
    at = run_more(run(OWN), d_model=3, d_k=2, d_v=2)
    next(b for b in at.button if b.key == BOX + "sidebar").click()
    at.run()
    r = attnviz.compute(attnviz.Settings(d_model=3, d_k=2, d_v=2)).result
    for name in NAMES:
        np.testing.assert_array_equal(
            own_numbers.parse_matrix(name, box(at, name).value), np.round(getattr(r, name), 2)
        )
    assert box(at, "labels").value == "the cat sat on the mat"
    assert chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"][0] == "the (1)"
    next(b for b in at.button if b.key == BOX + "exercise").click()
    at.run()
    assert box(at, "X").value == format_matrix(EXERCISE["X"])


def test_an_uploaded_download_of_the_step_page_comes_back_exactly():
    example = attnviz.compute(attnviz.Settings(text="to be or not", d_model=5, d_k=3, d_v=2))
    at = run(OWN)
    at.file_uploader[0].upload("attnviz-steps.npz", all_steps_npz(example))
    at.run()
    assert not at.exception and not at.error
    assert "Read X, W_Q, W_K and W_V from attnviz-steps.npz" in plain(at.success[0])
    specs = chart_specs(at)
    assert_drawn(heatmap_z(specs["A"]), example.result.attention)
    assert_drawn(heatmap_z(specs["output"]), example.result.output)
    assert specs["A"]["layout"]["yaxis"]["ticktext"] == example.labels


def test_an_upload_without_usable_tokens_says_the_rows_are_numbered():
    buffer = io.BytesIO()
    np.savez(
        buffer,
        tokens=np.array(["New York", "b"]),
        X=np.eye(2),
        **{name: np.ones((2, 1)) for name in ("W_Q", "W_K")},
        W_V=np.eye(2),
    )
    at = run(OWN)
    at.file_uploader[0].upload("mine.npz", buffer.getvalue())
    at.run()
    assert "It has no tokens (words without spaces): rows are numbered." in plain(at.success[0])
    assert chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"] == ["t1", "t2"]


def test_a_bad_upload_says_why_and_keeps_the_boxes():
    at = type_into(run(OWN), X="1 1 1 1\n2 2 2 2")
    buffer = io.BytesIO()
    np.savez(buffer, X=np.eye(2))
    at.file_uploader[0].upload("mine.npz", buffer.getvalue())
    at.run()
    assert "mine.npz: the file has no W_Q, W_K, W_V" in plain(at.error[0])
    assert box(at, "X").value == "1 1 1 1\n2 2 2 2"
    assert at.get("plotly_chart")  # the boxes' numbers are still drawn


def test_what_was_typed_survives_a_visit_to_another_page():
    at = run("app.py")
    at.switch_page(OWN)
    at = type_into(at.run(), X="3 0 0 1\n0 1 2 0")
    at.switch_page(STEP)
    at.run()
    assert at.query_params.get("X") is None  # the other page's link has no matrices
    at.switch_page(OWN)
    at.run()
    assert box(at, "X").value == "3 0 0 1\n0 1 2 0"
    assert at.query_params["X"] == "3,0,0,1;0,1,2,0"


def test_long_matrices_stay_out_of_the_link():
    X = "\n".join(" ".join(f"{0.123456789 * (i + j):.9f}" for j in range(40)) for i in range(40))
    W = "\n".join(" ".join("1" if i == j else "0" for j in range(4)) for i in range(40))
    at = type_into(run(OWN), X=X, W_Q=W, W_K=W, W_V=W)
    assert not at.error and "X" not in at.query_params
    assert any("the page's link would be" in c.value for c in at.caption)


def test_the_whole_link_counts_toward_its_limit_not_only_the_matrices():
    # The matrices alone fit (under MAX_OWN_URL_CHARS); with the sidebar's settings in the
    # same link they do not, so they stay out of it and the caption says how long it would be.
    from urllib.parse import urlencode

    from attnviz.files.own_numbers import format_matrix
    from attnviz.limits import MAX_OWN_URL_CHARS

    def link_part(n):  # what the page writes for an (n, 4) X and identity weights
        X = 0.1234567 * (np.arange(n)[:, None] + np.arange(1, 5))
        found = {"X": X, "W_Q": np.eye(4), "W_K": np.eye(4), "W_V": np.eye(4)}
        part = {k: format_matrix(v, row_sep=";", entry_sep=",") for k, v in found.items()}
        return X, len(urlencode(part))

    n = max(n for n in range(1, 65) if link_part(n)[1] <= MAX_OWN_URL_CHARS)
    X, size = link_part(n)
    assert size > MAX_OWN_URL_CHARS - 100  # alone the matrices fit, by less than the settings
    W = "\n".join(" ".join("1" if i == j else "0" for j in range(4)) for i in range(4))
    at = type_into(run(OWN), X="\n".join(" ".join(map(str, row)) for row in X), W_Q=W, W_K=W, W_V=W)
    assert not at.error
    assert "X" not in at.query_params
    assert any("the page's link would be" in c.value for c in at.caption)


def test_a_link_and_a_box_follow_one_rule():
    # "1,,0" has an empty entry: typed in the box it is refused, and so it is from a link.
    W = "1;0"
    at = run(OWN, {"X": "1,,0;0,1", "W_Q": W, "W_K": W, "W_V": W})
    assert "row 1, entry 2 is empty" in plain(at.error[0])
    assert box(at, "X").value == "1,,0\n0,1"  # the link's text kept, rows on lines


def test_entries_and_file_names_show_as_typed_never_as_markdown():
    at = type_into(run(OWN), X="1 0 1 0\n0 2 **bold** 2\n1 1 1 1", W_Q="$x^2$")
    shown = at.error[0].value
    assert "\\*\\*bold\\*\\*" in shown and "\\$x\\^2\\$" in shown  # escaped: drawn as typed
    assert "'**bold**' is not a number" in plain(at.error[0])
    at.file_uploader[0].upload("[x](https://example.com) _i_.json", b"not json")
    at.run()
    assert "\\[x\\]\\(https" in at.error[0].value
    assert plain(at.error[0]).startswith("[x](https://example.com) _i_.json: the file is not")


def test_the_sidebars_example_button_leaves_the_boxes_when_it_cannot_fill_them():
    at = type_into(run(OWN), X="9 9 9 9\n8 8 8 8\n7 7 7 7")
    at = run_more(at, d_model=100)
    next(b for b in at.button if b.key == BOX + "sidebar").click()
    at.run()
    assert not at.exception
    assert "this page takes up to 64 tokens and 64 dimensions" in plain(at.error[0])
    assert box(at, "X").value == "9 9 9 9\n8 8 8 8\n7 7 7 7"
    at = run_more(at, d_model=2, embedding="one-hot")  # five distinct tokens need d_model >= 5
    next(b for b in at.button if b.key == BOX + "sidebar").click()
    at.run()
    assert not at.exception
    assert plain(at.error[0]).startswith("The sidebar's settings: one-hot")
    assert box(at, "X").value == "9 9 9 9\n8 8 8 8\n7 7 7 7"


def test_the_pages_own_download_comes_back_with_its_repeated_tokens():
    at = type_into(run(OWN), labels="a b a")
    download = next(b for b in at.get("download_button") if "download_own" in b.proto.id)
    assert download  # the file itself is made by matrices_npz, read back here:
    data = matrices_npz(
        {name: own_numbers.parse_matrix(name, box(at, name).value) for name in NAMES},
        ["a", "b", "a"],
    )
    at.file_uploader[0].upload("mine.npz", data)
    at.run()
    assert box(at, "labels").value == "a b a"
    assert chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"] == ["a (1)", "b", "a (2)"]


def test_the_sidebar_says_which_of_its_settings_this_page_uses():
    note = "This page uses only the **mask**, **scaling** and **temperature**"
    own, step = run(OWN).sidebar.caption, run(STEP).sidebar.caption
    assert any(note in c.value for c in own)
    assert not any("n = 6 tokens" in c.value for c in own)  # its n comes from its X
    assert not any("This page uses only" in c.value for c in step)
    assert any("n = 6 tokens" in c.value for c in step)


def test_the_default_exercise_credits_its_source():
    at = run(OWN)
    text = " ".join(md.value for md in at.markdown)
    assert "R. Karim" in text and "turn scaling off" in text


def test_one_entry_of_your_x_changed_outlines_what_it_moved_and_new_boxes_undo_it():
    """The integer exercise, X[0, 2] from 1 to 3: the exercise's W_Q has a 0 in row 2, so one
    column of query 0 stays still, and the page says why."""
    at = run(OWN)
    at.selectbox(key="attnviz_edit_c").set_value(2).run()
    at.number_input(key="attnviz_edit_value").set_value(3.0).run()
    assert at.query_params["edit"] == "0,2,3"
    X = np.array(EXERCISE["X"], dtype=float)
    X[0, 2] = 3.0
    A_old, out_old = reference(EXERCISE["X"], EXERCISE["W_Q"], EXERCISE["W_K"], EXERCISE["W_V"])
    A_new, out_new = reference(X, EXERCISE["W_Q"], EXERCISE["W_K"], EXERCISE["W_V"])
    specs = chart_specs(at)
    for key, old, new in (("A", A_old, A_new), ("output", out_old, out_new)):
        np.testing.assert_array_equal(outlined(specs[key]), np.abs(new - old) > 1e-9, key)
        assert_drawn(heatmap_z(specs[key]), new)
    Q_moved = np.abs(X @ np.array(EXERCISE["W_Q"]) - np.array(EXERCISE["X"]) @ EXERCISE["W_Q"])
    np.testing.assert_array_equal(outlined(specs["Q"]), Q_moved > 1e-9)
    assert not outlined(specs["Q"]).all(axis=1)[0]  # W_Q's row 2 has a 0
    assert any("row 2 of W\\_Q is not 0" in m.value for m in at.markdown)
    type_into(at, X="1 0 1 0\n0 2 0 2\n1 1 1 1\n2 2 2 2")  # four rows: the edit still fits
    assert outlined(chart_specs(at)["X"])[0, 2]
    at.button(key="attnviz_edit_undo_picker").click().run()
    assert "edit" not in at.query_params and not chart_specs(at)["X"]["layout"].get("shapes")


def test_the_edit_picker_survives_new_matrices_with_fewer_rows_and_columns():
    at = run(OWN)
    at.selectbox(key="attnviz_edit_i").set_value(2).run()
    at.selectbox(key="attnviz_edit_c").set_value(3).run()
    at.number_input(key="attnviz_edit_value").set_value(5.0).run()
    assert at.query_params["edit"] == "2,3,5"
    type_into(at, X="1 0\n0 1", W_Q="1 0\n0 1", W_K="1 0\n0 1", W_V="1 0\n0 1")
    assert "edit" not in at.query_params
    assert at.selectbox(key="attnviz_edit_i").value == 0
    assert at.number_input(key="attnviz_edit_value").value == 1.0  # X[0, 0] of the new X
