"""The bad-input catalogue: odd and bad inputs, the message each gets, and the app still working.

Each case is one input (in the URL, as a shared link would give it, or in a sidebar widget, as a
student would type it) and the message it must get. Every case is checked as pure calls (the
link read, the example computed); a few go through the step-by-step page too, which shows the
message and keeps working: no exception, and a good sentence typed next draws the charts again.
Every page at the limits: tests/test_session_memory.py.
"""

from dataclasses import replace

import numpy as np
import pytest

import attnviz
from attnviz.charts import MAX_LABEL_CHARS
from attnviz.limits import MAX_TEXT_CHARS, MAX_TOKENS
from tests.helpers import STEP, chart_specs, heatmap_z, run, run_more

WORDS = lambda k: " ".join(f"w{i}" for i in range(k))  # noqa: E731

# (case id, URL query, sidebar widget changes, where the message is, text it contains;
#  where is "warning", "error" or None when the input is fine and must simply work)
CATALOGUE = [
    ("empty text", {}, {"text": ""}, "error", "no tokens"),
    ("only spaces", {}, {"text": "  \t  "}, "error", "no tokens"),
    ("only newlines", {"tokens": "\n\n"}, {}, "error", "no tokens"),
    ("one token", {"tokens": "hello"}, {}, None, ""),
    ("the maximum number of tokens", {"tokens": WORDS(MAX_TOKENS)}, {}, None, ""),
    (
        "one past the maximum",
        {"tokens": WORDS(MAX_TOKENS + 1)},
        {},
        "warning",
        f"first {MAX_TOKENS}",
    ),
    (
        "text longer than the URL limit",
        {"tokens": "ab " * (MAX_TEXT_CHARS // 2)},
        {},
        "warning",
        "cut to",
    ),
    ("a very long token", {"tokens": "x" * 5000 + " y"}, {}, None, ""),
    ("emoji", {"tokens": "🐱 sat on 🐱"}, {}, None, ""),
    ("right-to-left text", {"tokens": "שלום עולם مرحبا"}, {}, None, ""),
    ("control characters", {"tokens": "a\x00b c\x07"}, {}, None, ""),
    ("HTML bold", {"tokens": "<b>x</b> y"}, {}, None, ""),
    ("HTML image with onerror", {"tokens": "<img/src=x/onerror=alert(1)> y"}, {}, None, ""),
    ("Plotly template", {"tokens": "%{z} %{customdata[0]} y"}, {}, None, ""),
    ("Markdown and LaTeX", {"tokens": "**b** $x$ :red[r] [l](http://x)"}, {}, None, ""),
    ("d_k zero", {"d_k": "0"}, {}, "warning", "d_k=0"),
    ("d_model negative", {"d_model": "-5"}, {}, "warning", "d_model=-5"),
    ("d_v huge", {"d_v": "99999999999999999999"}, {}, "warning", "d_v=99999999999999999999"),
    ("d_k not a number", {"d_k": "four"}, {}, "warning", "d_k=four"),
    ("d_model a float", {"d_model": "8.5"}, {}, "warning", "d_model=8.5"),
    ("seed not a number", {"seed": "abc"}, {}, "warning", "seed=abc"),
    ("seed negative", {"seed": "-1"}, {}, "warning", "seed=-1"),
    ("n zero", {"n": "0"}, {}, "warning", "n=0"),
    ("n past the limit", {"n": str(MAX_TOKENS + 1)}, {}, "warning", f"n={MAX_TOKENS + 1}"),
    ("temperature zero", {"temperature": "0"}, {}, "warning", "temperature=0"),
    ("temperature infinite", {"temperature": "inf"}, {}, "warning", "temperature=inf"),
    ("temperature overflowing", {"temperature": "1e400"}, {}, "warning", "temperature=1e400"),
    ("temperature not a number", {"temperature": "hot"}, {}, "warning", "temperature=hot"),
    ("unknown mask", {"mask": "diagonal"}, {}, "warning", "mask=diagonal"),
    ("mask in capitals", {"mask": "CAUSAL"}, {}, None, ""),
    ("scale neither on nor off", {"scale": "yes"}, {}, "warning", "scale=yes"),
    ("unknown embedding", {"embedding": "glove"}, {}, "warning", "embedding=glove"),
    ("unknown parameter", {"colour": "red"}, {}, None, ""),
    (
        "one-hot with d_model below the vocabulary",
        {"embedding": "onehot", "d_model": "2"},
        {},
        "error",
        "one-hot",
    ),
    (
        "every setting bad at once",
        {"d_k": "x", "d_v": "0", "seed": "-3", "mask": "?", "temperature": "nan", "scale": "2"},
        {},
        "warning",
        "d_v=0",
    ),
]


def outcome(query, widgets):
    """(warnings, error message or None) of one case, as pure calls: the link read by
    ``from_query``, the sidebar's changes applied, the example computed."""
    settings, warnings = attnviz.from_query(query)
    try:
        attnviz.compute(replace(settings, **widgets))
    except attnviz.AttentionInputError as exc:
        return warnings, str(exc)
    return warnings, None


PAGE_ONLY = {"one past the maximum"}  # the page cuts the tokens (attnviz/ui/frame.py)


@pytest.mark.parametrize(
    ("query", "widgets", "where", "text"),
    [case[1:] for case in CATALOGUE if case[0] not in PAGE_ONLY],
    ids=[case[0] for case in CATALOGUE if case[0] not in PAGE_ONLY],
)
def test_bad_input_gets_a_message(query, widgets, where, text):
    warnings, error = outcome(query, widgets)
    if where is None:
        assert not warnings and error is None, (warnings, error)
    elif where == "warning":
        assert any(text in w for w in warnings) and error is None, (warnings, error)
    else:
        assert error is not None and text in error, (warnings, error)


# On the page, a few cases: an error that stops it, a link the page cuts with a warning, a link
# full of bad values, markup typed as tokens; each gets its message and the app keeps working.
ON_THE_PAGE = {"empty text", "one past the maximum", "every setting bad at once",
               "HTML image with onerror", "one-hot with d_model below the vocabulary"}  # fmt: skip


@pytest.mark.parametrize(
    ("query", "widgets", "where", "text"),
    [case[1:] for case in CATALOGUE if case[0] in ON_THE_PAGE],
    ids=[case[0] for case in CATALOGUE if case[0] in ON_THE_PAGE],
)
def test_bad_input_gets_a_message_and_the_page_keeps_working(query, widgets, where, text):
    at = run(STEP, query, **widgets)  # run() asserts that no exception reached the page
    messages = {"warning": [w.value for w in at.warning], "error": [e.value for e in at.error]}
    if where is None:
        assert not messages["error"] and not messages["warning"], messages
        assert "A" in chart_specs(at)
    else:
        assert any(text in m for m in messages[where]), messages
    at = run_more(run_more(at, generated=False, embedding="random"), text="it still works")
    assert chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"] == ["it", "still", "works"]
    assert not at.error


def test_tokens_show_as_typed():
    tokens = ["<b>x</b>", "<img/src=x/onerror=alert(1)>", "%{z}", "%{customdata[0]}", "**y**"]
    tokens += ["x" * 5000]
    at = run(STEP, {"tokens": " ".join(tokens)})
    ticks = chart_specs(at)["A"]["layout"]["yaxis"]["ticktext"]
    shown = [t if len(t) <= MAX_LABEL_CHARS else t[: MAX_LABEL_CHARS - 1] + "…" for t in tokens]
    assert ticks == [
        t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for t in shown
    ]
    at.selectbox(key="attnviz_inspect_i").set_value(1)  # a cell picked: its inspector shows
    at.run()
    inspector = next(md.value for md in at.markdown if "(row " in md.value)
    assert r"**\<b\>x\<\/b\>**" in inspector  # markdown-escaped, shown as typed


def test_a_single_token_attends_to_itself_with_weight_one():
    A = heatmap_z(chart_specs(run(STEP, {"tokens": "hello"}))["A"])
    np.testing.assert_array_equal(A, [[1.0]])


def test_the_maximum_still_computes_every_exact_value():
    at = run(STEP, {"tokens": WORDS(MAX_TOKENS)})
    at.selectbox(key="attnviz_inspect_i").set_value(MAX_TOKENS - 1)
    at.selectbox(key="attnviz_inspect_j").set_value(3)
    at.run()
    r = attnviz.compute(attnviz.Settings(text=WORDS(MAX_TOKENS))).result
    latex = " ".join(el.value for el in at.latex)
    assert f"S_{{{MAX_TOKENS - 1},3}}" in latex and f"{r.attention[-1, 3]:.6g}" in latex
