"""The frame every page shares: the sidebar, its settings across pages, the URL, the menu."""

from urllib.parse import parse_qs

import pytest
from streamlit.util import calc_hash

import attnviz
from attnviz.charts.matrix import MAX_DRAWN, blocks
from attnviz.limits import MAX_TOKENS
from attnviz.links.course import LECTURERS
from attnviz.links.course import PAGES as TABLE
from attnviz.links.shared import settings_query
from tests.helpers import (
    ALL_SCRIPTS,
    CHARTLESS,
    LESSONS,
    PAGES,
    STEP,
    assert_drawn,
    chart_specs,
    expected,
    heatmap_z,
    run,
    run_more,
    widget_by_key,
)


@pytest.mark.parametrize("script", ALL_SCRIPTS)
def test_every_page_runs_with_default_settings(script):
    """The one AppTest run that opens each page just to see it run (at its limits:
    test_session_memory.py; a lesson's other sidebar cases: pages/test_smoke.py)."""
    at = run(script)
    assert not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart") or script in CHARTLESS, f"{script} draws no chart"
    assert at.query_params["tokens"] == "the cat sat on the mat"
    assert at.info or script not in LESSONS, "a lesson says in words what to notice"


def menu(at):
    """[(label, {query parameter: value})] of the sidebar's page links; each link goes to the
    page of its label (its URL path and the page's hash)."""
    links = at.sidebar.get("page_link")
    for link in links[1:]:  # Home's path is "" and its hash the main script's
        assert link.proto.page == link.proto.label.replace(" ", "_")
        assert link.proto.page_script_hash == calc_hash(link.proto.page)
    return [
        (link.proto.label, {k: v[0] for k, v in parse_qs(link.proto.query_string).items()})
        for link in links
    ]


def test_the_sidebar_menu_links_every_page_with_this_runs_settings():
    at = run("app.py", d_k=3, mask="causal")  # changed by widgets in the run that draws it
    labels = [page.label for page in TABLE]
    assert labels[0] == "Home" and len(labels) == len(PAGES) + 1
    assert [c.value for c in at.sidebar.caption if c.value == LECTURERS] == [LECTURERS]
    query = settings_query(expected(d_k=3, mask="causal").settings)
    assert menu(at) == [(label, query) for label in labels]
    at.switch_page(STEP)
    at.run()
    assert not at.exception
    assert menu(at) == [(label, query) for label in labels]


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
    assert_drawn(heatmap_z(specs["A"]), r.attention, mask=r.mask)
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
    assert_drawn(heatmap_z(specs["A"]), r.attention, mask=r.mask)
    assert_drawn(heatmap_z(specs["X"]), r.X)
    assert widget_by_key(at, "attnviz_temperature").value == 0.5


@pytest.mark.parametrize(
    ("query", "fragment"),
    [  # every value's warning is a pure call (test_settings.py, test_bad_input.py); the page
        # shows them, "did you mean" and a value that cannot end its code span among them
        ({"d_K": "9", "seed": "abc"}, "did you mean `d_k`"),
        ({"mask": "a`**b**`"}, "`mask=a'**b**'` in the link"),
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


def test_a_sentence_of_only_invisible_characters_gets_a_message():
    at = run(STEP, {"tokens": "\u200b \u202e \u2060"})
    assert any("only invisible characters" in e.value for e in at.error)
    assert not at.get("plotly_chart")


def test_a_temperature_with_three_decimals_is_shown_as_used():
    at = run(STEP, {"temperature": "0.015"})
    box = widget_by_key(at, "attnviz_temperature")
    assert box.value == 0.015 and box.proto.format == "%g"  # shows 0.015, not 0.01
    assert "T = 0.015" in at.caption[0].value
    assert_drawn(heatmap_z(chart_specs(at)["A"]), expected(temperature=0.015).result.attention)


def test_all_the_links_warnings_are_in_one_box():
    query = {f"d_k{i}": "1" for i in range(100)} | {"d_k": "0", "scale": "maybe"}
    at = run(STEP, query)
    assert len(at.warning) == 1
    text = at.warning[0].value
    assert "100 names in the link" in text and "`d_k=0`" in text and "`scale=maybe`" in text


def test_streamlits_clear_cache_message_leaves_the_shared_examples():
    # Any browser can send "clear cache"; Streamlit then empties cache_data and cache_resource
    # for every user. The examples are kept elsewhere.
    import streamlit as st

    import attnviz
    from attnviz.serve.example import cached_example

    first = cached_example(attnviz.Settings(seed=12345))
    st.cache_data.clear()
    st.cache_resource.clear()
    assert cached_example(attnviz.Settings(seed=12345)) is first


def test_the_menu_is_the_course_in_order_then_the_lecturers_tools():
    """Review 4, section 8: the intuition (geometry) before the algebra, the by-hand pages
    together, the two trained models side by side, Tiled last as going further, and the
    lecturer's tools apart, after the course."""
    labels = [page.label for page in TABLE[1:]]
    assert labels[:4] == [
        "Attention as geometry",
        "Step by step",
        "Work it out",
        "Your own numbers",
    ]
    model = labels.index("Real model")
    assert labels[model + 1] == "Inside a chat model"
    assert labels[-3:] == ["Tiled attention", "Lecture deck", "Classroom"]
    assert TABLE[-3].summary.startswith("Going further")
    assert [page.section for page in TABLE[-2:]] == [LECTURERS] * 2


def test_projector_mode_is_kept_across_pages_and_in_the_links():
    at = run("app.py", {"present": "on"})
    assert widget_by_key(at, "attnviz_present").value is True
    # its help names the course's pages that do not step, from their steps (review 4, I3), and
    # a step is shown one at a time, not said to fit one screen (review 5, I9)
    assert "one step at a time on every page of the course but Work it out," in (
        widget_by_key(at, "attnviz_present").help
    )
    assert all(query.get("present") == "on" for _, query in menu(at))
    at.switch_page(STEP)
    at.run()
    assert at.query_params["present"] == "on" and widget_by_key(at, "attnviz_present").value
    widget_by_key(at, "attnviz_present").set_value(False)
    at.run()
    assert "present" not in at.query_params
    assert all("present" not in query for _, query in menu(at))


def test_projector_mode_draws_only_the_settings_a_page_uses():
    at = run("app_pages/Real_model.py", {"present": "on"})
    assert not at.sidebar.get("number_input")  # d_model, d_k, seed, T: not used there
    assert widget_by_key(at, "attnviz_text").value == "the cat sat on the mat"


def test_a_heatmaps_datarevision_changes_exactly_when_what_it_draws_does():
    """show_matrix's figures carry no template and a datarevision digest of their inputs: the
    same inputs give the same revision (Plotly keeps what it drew), any change a new one."""
    import numpy as np
    import plotly.graph_objects as go

    from attnviz.charts.finish import drawn_once

    M, labels = np.arange(6.0).reshape(2, 3), ["a", "b"]

    def revision(*inputs):
        fig = go.Figure()
        drawn_once(fig, *inputs)
        assert fig.to_plotly_json()["layout"].get("template") is None
        return fig.layout.datarevision

    base = revision(M, labels, {"mask": np.ones((2, 3), bool), "title": "A"})
    assert base == revision(M.copy(), list(labels), {"title": "A", "mask": np.ones((2, 3), bool)})
    changed = M.copy()
    changed[1, 2] += 1e-12
    for other in [
        revision(changed, labels, {"mask": np.ones((2, 3), bool), "title": "A"}),
        revision(M, ["a", "c"], {"mask": np.ones((2, 3), bool), "title": "A"}),
        revision(M, labels, {"mask": np.eye(2, 3, dtype=bool), "title": "A"}),
        revision(M, labels, {"mask": np.ones((2, 3), bool), "title": "B"}),
        revision(M.reshape(3, 2), labels, {"mask": np.ones((2, 3), bool), "title": "A"}),
    ]:
        assert other != base
