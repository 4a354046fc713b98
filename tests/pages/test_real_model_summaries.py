"""The real-model page's sections 5 and 6 through AppTest: each layer's mean and rollout, and one
word's attention in two sentences. Every number is checked against a computation written here
from ``attnviz.load_pretrained().run(text)``; the runs are cached by the page (``model_run``)."""

import numpy as np
import pytest

from attnviz.ui.pages.real_model_summaries import (
    DEFAULT_PAIR,
    MAX_PAIR_CHARS,
    pair_from_query,
)
from attnviz.ui.text import md_escape
from tests.helpers import chart_specs, decode, heatmap_z, run

pytestmark = pytest.mark.usefixtures("real_model")  # skipped without the model's files

PAGE = "app_pages/Real_model.py"
ATOL = 1e-6
PAIR_CHARTS = {"model_pair_bars"}


@pytest.fixture(scope="module")
def model(real_model):
    return real_model


@pytest.fixture(scope="module")
def default_page():
    """One run of the page with its defaults, shared by the tests that only read it."""
    return run(PAGE)


def markdown(at):
    return "\n".join(md.value for md in at.markdown)


def bars(spec):
    """(first row, second row, tick labels) of the paired bar chart."""
    one, two = spec["data"]
    return (
        decode(one["y"]).astype(float),
        decode(two["y"]).astype(float),
        spec["layout"]["xaxis"]["ticktext"],
    )


def test_the_last_layers_mean_and_rollout(model, default_page):
    at = default_page
    A = model.run("the cat sat on the mat").attention.astype(float)  # (6, 12, 8, 8)
    R = np.eye(8)
    for layer in range(6):
        mixed = 0.5 * A[layer].mean(axis=0) + 0.5 * np.eye(8)
        R = (mixed / mixed.sum(axis=1, keepdims=True)) @ R
    specs = chart_specs(at)
    mean = A[5].mean(axis=0)
    np.testing.assert_allclose(heatmap_z(specs["model_layer_mean"]), mean, atol=ATOL)
    np.testing.assert_allclose(heatmap_z(specs["model_rollout"]), R, atol=ATOL)
    text = markdown(at)
    itself, special = np.diag(mean).mean(), mean[:, [0, 7]].sum(axis=1).mean()
    assert f"puts **{itself:.2f}** of its weight on itself and **{special:.2f}** on" in text
    assert f"draws **{np.diag(R).mean():.2f}** on average from its own input" in text
    assert "learned from text, not drawn at random" in text
    assert "ignores the values, W_O and the feed-forward layers" in text


def test_another_layer_is_summarised(model):
    at = run(PAGE)
    at.radio(key="model_summary_layer").set_value(1)
    at.run()
    assert not at.exception
    A = model.run("the cat sat on the mat").attention.astype(float)
    mixed = [0.5 * A[layer].mean(axis=0) + 0.5 * np.eye(8) for layer in (0, 1)]
    specs = chart_specs(at)
    np.testing.assert_allclose(heatmap_z(specs["model_layer_mean"]), A[1].mean(axis=0), atol=ATOL)
    np.testing.assert_allclose(heatmap_z(specs["model_rollout"]), mixed[1] @ mixed[0], atol=ATOL)
    assert specs["model_rollout"]["layout"]["title"]["text"].endswith("Rollout through layer 1")


def test_the_classic_pair_ranks_heads_by_how_far_it_moves(model, default_page):
    at = default_page
    a, b = (model.run(text) for text in DEFAULT_PAIR)
    assert len(a.tokens) == len(b.tokens)  # one piece differs: the lined-up rows are the rows
    it = a.tokens.index("it")
    distance = {
        (layer, head): 0.5
        * np.abs(a.attention[layer, head, it] - b.attention[layer, head, it]).sum()
        for layer in range(6)
        for head in range(12)
    }
    order = sorted(distance, key=lambda k: -distance[k])
    table = at.dataframe[-1].value
    assert list(zip(table["layer"], table["head"], strict=True)) == order[: len(table)]
    np.testing.assert_allclose(
        table["difference"], [distance[k] for k in order[: len(table)]], atol=6e-4
    )
    first = order[0]
    top = int(np.argmax(a.attention[first][it]))
    assert (
        table["most weight in sentence 1"][0]
        == f"{a.tokens[top]} ({a.attention[first][it, top]:.2f})"
    )
    buttons = [b.label for b in at.button if b.key.startswith("model_pair_open_")]
    assert buttons[0] == f"Layer {first[0]}, head {first[1]}"
    text = markdown(at)
    assert f"from **{distance[order[0]]:.2f}** in the first head" in text
    # the strongest tie beyond [CLS], [SEP], "it" and its neighbours, found by hand in sentence 1
    keys = [j for j in range(len(a.tokens) - 3) if j not in (0, it - 1, it, it + 1)]
    keys.append(len(a.tokens) - 2)  # "." is shared too; "tired"/"wide" is not
    weight, layer, head, key = max(
        (a.attention[ll, hh, it, j], ll, hh, j) for ll in range(6) for hh in range(12) for j in keys
    )
    assert (
        f"Sentence 1: “it” puts **{weight:.2f}** of its weight on {a.tokens[key]} in layer "
        f"{layer} head {head}; the same head puts **{b.attention[layer, head, it, key]:.2f}**"
    ) in text
    assert "Attention is not explanation" in text
    first_row, second_row, ticks = bars(chart_specs(at)["model_pair_bars"])  # the head chosen: 0, 0
    np.testing.assert_allclose(first_row, a.attention[0, 0, it], atol=ATOL)
    np.testing.assert_allclose(second_row, b.attention[0, 0, it], atol=ATOL)
    assert "tired / wide" in ticks and "animal" in ticks
    assert at.selectbox(key="model_pair_word").value == "it"
    n = len(a.tokens)
    captions = " ".join(c.value for c in at.caption)
    assert f"word piece by word piece (Python's difflib): {n - 1} pieces match" in captions
    assert f"differ ({md_escape('tired / wide')}) counts as one key" in captions
    assert "model_a" not in at.query_params and "model_b" not in at.query_params


def test_street_to_road_keeps_it_and_a_word_that_goes_is_said(model):
    at = run(PAGE)
    road = DEFAULT_PAIR[1].replace("street", "road")
    at.text_input(key="model_pair_b").set_value(road)
    at.run()
    assert at.selectbox(key="model_pair_word").value == "it"  # still "it", said nowhere else
    assert not [i for i in at.info if "no longer" in i.value]
    captions = " ".join(c.value for c in at.caption)
    assert "(" + md_escape("street / road; tired / wide") + ")" in captions
    a, b = model.run(DEFAULT_PAIR[0]), model.run(road)
    _, second, ticks = bars(chart_specs(at)["model_pair_bars"])
    it = a.tokens.index("it")
    np.testing.assert_allclose(second[it], b.attention[0, 0, b.tokens.index("it"), it], atol=ATOL)
    assert "street / road" in ticks and "tired / wide" in ticks
    at.text_input(key="model_pair_b").set_value(road.replace(" it ", " she "))
    at.radio(key="model_summary_text").set_value("sentence 2 of §5")  # §6: the pair's second
    at.run()
    said = " ".join(i.value for i in at.info)
    word = at.selectbox(key="model_pair_word").value
    assert word != "it" and "“it” is no longer a word piece both sentences share" in said
    assert f"so the word compared is now “{md_escape(word)}”" in said
    B = model.run(road.replace(" it ", " she ")).attention.astype(float)
    mean = heatmap_z(chart_specs(at)["model_layer_mean"])
    np.testing.assert_allclose(mean, B[5].mean(axis=0), atol=ATOL)


def test_every_row_of_the_chosen_head_on_request(model):
    at = run(PAGE)
    assert "model_pair_A1" not in chart_specs(at)  # off: not sent with every rerun
    at.toggle(key="model_pair_all_rows").set_value(True)
    at.run()
    for number, text in enumerate(DEFAULT_PAIR, 1):
        A = model.run(text).attention[0, 0]
        np.testing.assert_allclose(
            heatmap_z(chart_specs(at)[f"model_pair_A{number}"]), A, atol=ATOL
        )


def test_a_ranked_heads_button_opens_it(model):
    at = run(PAGE)
    button = next(b for b in at.button if b.key.startswith("model_pair_open_"))
    layer, head = (int(x) for x in button.key.rsplit("_", 2)[1:])
    button.click()
    at.run()
    assert not at.exception
    assert (at.radio(key="model_layer").value, at.radio(key="model_head").value) == (layer, head)
    assert f"Layer {layer}, head {head} (chosen above), side by side" in [
        s.value for s in at.subheader
    ]
    a = model.run(DEFAULT_PAIR[0])
    it = a.tokens.index("it")
    first_row, _, _ = bars(chart_specs(at)["model_pair_bars"])
    np.testing.assert_allclose(first_row, a.attention[layer, head, it], atol=ATOL)
    assert "(rank 1 of 72)" in markdown(at)


def test_edited_sentences_go_to_the_link_and_markup_shows_as_typed(model):
    at = run(PAGE)
    first, second = "**<b>it</b>** was tired", "**<b>it</b>** was wide"
    at.text_input(key="model_pair_a").set_value(first)
    at.text_input(key="model_pair_b").set_value(second)
    at.run()
    assert not at.exception and not at.error
    assert (at.query_params["model_a"], at.query_params["model_b"]) == (first, second)
    assert at.selectbox(key="model_pair_word").value == "it"
    ticks = bars(chart_specs(at)["model_pair_bars"])[2]
    assert not any("<" in tick for tick in ticks) and "&lt; (1)" in ticks
    at.selectbox(key="model_pair_word").set_value("< (1)")
    at.run()
    text = markdown(at)
    assert f"the weight of “{md_escape('< (1)')}”" in text and "<" not in text.replace("\\<", "")
    spec = chart_specs(at)["model_pair_bars"]
    assert spec["layout"]["title"]["text"].startswith("Where “&lt; (1)” puts its weight")
    a = model.run(first)
    i_a = a.tokens.index("<")
    np.testing.assert_allclose(bars(spec)[0][:i_a], a.attention[0, 0, i_a, :i_a], atol=ATOL)


def test_the_links_bad_sentences_are_clamped_with_a_warning():
    long = "it " * 150
    at = run(PAGE, query={"model_a": long, "model_b": "   "})
    assert not at.exception and not at.error
    warning = " ".join(w.value for w in at.warning)
    assert f"model_a (sentence 1) has {len(long)} characters" in warning
    assert "model_b (sentence 2) is empty" in warning
    assert at.text_input(key="model_pair_a").value == long[:MAX_PAIR_CHARS]
    assert at.text_input(key="model_pair_b").value == DEFAULT_PAIR[1]
    assert at.query_params["model_a"] == long[:MAX_PAIR_CHARS]
    assert set(chart_specs(at)) >= PAIR_CHARTS


def test_an_empty_or_identical_pair_draws_no_comparison():
    at = run(PAGE)
    at.text_input(key="model_pair_a").set_value("  ")
    at.run()
    assert any("A sentence is empty" in w.value for w in at.warning)
    assert not PAIR_CHARTS & set(chart_specs(at))
    at.text_input(key="model_pair_a").set_value(DEFAULT_PAIR[1])
    at.run()
    assert any("same word pieces" in i.value for i in at.info) and not at.exception


def test_pair_from_query():
    assert pair_from_query({}) == (DEFAULT_PAIR, [])
    (a, b), warnings = pair_from_query({"model_a": ["x", "y"], "model_b": "z"})
    assert (a, b, warnings) == (
        "y",
        "z",
        ["`model_a` appears 2 times in the link: using the last, `y`."],
    )
    (a, _), warnings = pair_from_query({"model_a": "é" * (MAX_PAIR_CHARS + 1)})
    assert len(a) == MAX_PAIR_CHARS and "the first 200 are used" in warnings[0]


def test_the_projected_compare_step_opens_on_the_comparison_of_the_strongest_tie(model):
    """A deck's "Compare two sentences" slide: no head grid, no picker; the bars are those of
    the head where "it" ties most to a shared piece in sentence 1 (found here by hand)."""
    at = run(PAGE, {"present": "on", "step": "3"})
    specs = chart_specs(at)
    assert "model_grid" not in specs and not [r for r in at.radio if r.key == "model_layer"]
    a, b = (model.run(text) for text in DEFAULT_PAIR)
    it = a.tokens.index("it")
    keys = [j for j in range(len(a.tokens) - 3) if j not in (0, it - 1, it, it + 1)]
    keys.append(len(a.tokens) - 2)
    _, layer, head, key = max(
        (a.attention[ll, hh, it, j], ll, hh, j) for ll in range(6) for hh in range(12) for j in keys
    )
    assert a.tokens[key] == "animal"
    first_row, second_row, _ = bars(specs["model_pair_bars"])
    np.testing.assert_allclose(first_row, a.attention[layer, head, it], atol=ATOL)
    np.testing.assert_allclose(second_row, b.attention[layer, head, it], atol=ATOL)
    assert f"Layer {layer}, head {head} (the head of sentence 1's strongest tie), side by side" in [
        s.value for s in at.subheader
    ]
