"""URL settings: any query string gives valid Settings, with a warning for what was changed."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnviz
from attnviz import limits
from attnviz.links.shared import settings_query
from attnviz.settings import EMBEDDINGS, MASKS, shown_temperature

FAST = settings(max_examples=100, deadline=None)

URL_NAMES = [
    "tokens",
    "n",
    "d_model",
    "d_k",
    "d_v",
    "seed",
    "embedding",
    "positions",
    "mask",
    "scale",
    "temperature",
]
JUNK_NAMES = ["", "foo", "TOKENS", "d_K", "embed", "utm_source", "text", "generated"]
RANGES = {
    "n": (1, limits.MAX_TOKENS),
    "d_model": (1, limits.MAX_D_MODEL),
    "d_k": (1, limits.MAX_D_K),
    "d_v": (1, limits.MAX_D_V),
    "seed": (0, limits.MAX_SEED),
}
values = st.text() | st.integers(-(10**12), 10**12).map(str) | st.floats().map(str)
values |= st.sampled_from(["on", "OFF", " causal ", "none", "one-hot", "onehot", "1e400", "nan"])


def assert_valid(s):
    assert isinstance(s, attnviz.Settings)
    for name, (low, high) in RANGES.items():
        value = getattr(s, name)
        assert isinstance(value, int) and low <= value <= high, name
    assert limits.MIN_TEMPERATURE <= s.temperature <= limits.MAX_TEMPERATURE
    assert s.mask in MASKS and s.embedding in EMBEDDINGS
    assert isinstance(s.scale, bool) and isinstance(s.positions, bool)
    assert isinstance(s.text, str) and len(s.text) <= limits.MAX_TEXT_CHARS
    assert len(s.tokens) <= limits.MAX_TOKENS


@FAST
@given(st.dictionaries(st.sampled_from(URL_NAMES + JUNK_NAMES), values))
def test_from_query_never_raises_and_gives_valid_settings(query):
    s, warnings = attnviz.from_query(query)
    assert_valid(s)
    assert all(isinstance(w, str) and w for w in warnings)
    warned = {w.split("=")[0] for w in warnings if w.startswith("`")}
    for name, (low, high) in RANGES.items():
        if name not in query:
            continue
        try:
            number = int(query[name].strip())
        except ValueError:
            number = None
        if number is not None and low <= number <= high:
            assert getattr(s, name) == number  # a good value is used as given
        else:
            assert f"`{name}" in warned  # anything else is said
    choices = {"mask": MASKS, "scale": ("on", "off"), "positions": ("on", "off")}
    for name, allowed in choices.items():
        if name in query and query[name].strip().lower() not in allowed:
            assert f"`{name}" in warned
    if "mask" in query and query["mask"].strip().lower() in MASKS:
        assert s.mask == query["mask"].strip().lower()


@FAST
@given(st.dictionaries(st.sampled_from(URL_NAMES + JUNK_NAMES), st.text()))
def test_from_query_never_raises_for_any_text(query):
    s, warnings = attnviz.from_query(query)
    assert_valid(s)
    assert all(isinstance(w, str) for w in warnings)


def test_repeated_parameters_take_the_last_value_and_say_so():
    s, warnings = attnviz.from_query({"d_k": ["2", "3"], "mask": ["causal"]})
    assert (s.d_k, s.mask) == (3, "causal")
    assert warnings == ["`d_k` appears 2 times in the link: using the last, `3`."]


def test_an_out_of_range_value_is_quoted_as_it_was_written():
    # 1e-400 reads as 0.0; the warning quotes the link's own text, not "temperature=0"
    s, warnings = attnviz.from_query({"temperature": "1e-400"})
    assert s.temperature == limits.MIN_TEMPERATURE
    assert warnings == ["`temperature=1e-400` in the link is outside 0.01 to 100: using 0.01."]


@pytest.mark.parametrize("spelling", ["one-hot", "onehot", "One-Hot"])
def test_one_hot_is_read_in_the_sidebars_spelling_too(spelling):
    assert attnviz.from_query({"embedding": spelling}) == (
        attnviz.Settings(embedding="one-hot"),
        [],
    )


def test_many_misspelt_names_give_one_warning():
    s, warnings = attnviz.from_query({f"d_k{i}": "1" for i in range(100)})
    assert s == attnviz.Settings() and len(warnings) == 1
    assert warnings[0].startswith("100 names in the link look like misspelt settings")


@pytest.mark.parametrize(
    ("raw", "used", "warned"),
    [("0.015", 0.015, False), ("99.999", 99.999, False), ("0.0123456789", 0.0123457, True)],
)
def test_the_temperature_used_is_the_one_the_sidebar_shows(raw, used, warned):
    s, warnings = attnviz.from_query({"temperature": raw})
    assert s.temperature == used and f"{s.temperature:g}" == f"{used:g}"
    assert bool(warnings) == warned


@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [
        ("d_k", "0", 1),
        ("d_k", "-5", 1),
        ("d_k", str(limits.MAX_D_K + 1), limits.MAX_D_K),
        ("d_v", "100000", limits.MAX_D_V),
        ("d_model", "99999999999999999999", limits.MAX_D_MODEL),
        ("seed", "-1", 0),
        ("seed", str(limits.MAX_SEED + 1), limits.MAX_SEED),
        ("n", "0", 1),
        ("n", "100000", limits.MAX_TOKENS),
        ("temperature", "0", limits.MIN_TEMPERATURE),
        ("temperature", "-3", limits.MIN_TEMPERATURE),
        ("temperature", "1e9", limits.MAX_TEMPERATURE),
    ],
)
def test_out_of_range_values_are_clamped_with_a_warning(name, raw, expected):
    s, warnings = attnviz.from_query({name: raw})
    assert getattr(s, name) == expected
    assert len(warnings) == 1
    assert f"`{name}=" in warnings[0] and "outside" in warnings[0]


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("d_k", "abc"),
        ("d_model", "4.5"),
        ("seed", ""),
        ("n", "ten"),
        ("temperature", "warm"),
        ("temperature", "nan"),
        ("temperature", "inf"),
        ("mask", "diagonal"),
        ("scale", "maybe"),
        ("positions", "yes please"),
        ("embedding", "word2vec"),
    ],
)
def test_junk_values_keep_the_default_with_a_warning(name, raw):
    s, warnings = attnviz.from_query({name: raw})
    assert s == attnviz.Settings()
    assert len(warnings) == 1
    assert f"`{name}=" in warnings[0]


def test_unknown_names_are_ignored():
    # Streamlit adds its own parameters (embed=true), so names that are not settings pass quietly.
    query = {"embed": "true", "embed_options": "dark_theme", "utm_source": "x", "ref": "y"}
    s, warnings = attnviz.from_query(query)
    assert s == attnviz.Settings() and warnings == []


def test_values_quoted_in_warnings_cannot_break_out_of_their_code_span():
    # The page shows warnings as Markdown: a backtick or a blank line in the link must not end
    # the `code span` and turn the rest into bold text, links or headings.
    nasty = "a`**b**` [x](http://e.com)\n\n# big <img src=x onerror=alert(1)>"
    query = {"mask": nasty, "d_k": nasty, "temperature": nasty, "d_K`": "1"}
    s, warnings = attnviz.from_query(query)
    assert s == attnviz.Settings() and len(warnings) == 4
    for warning in warnings:
        assert "\n" not in warning
        assert warning.count("`") in (2, 4)  # one code span, or two for "did you mean"
        assert "**b**" not in warning or "'**b**'" in warning


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("d_K", "d_k"),
        ("D_MODEL", "d_model"),
        ("token", "tokens"),
        ("Temperature", "temperature"),
        ("masks", "mask"),
        ("dk", "d_k"),
        ("sead", "seed"),
    ],
)
def test_a_misspelt_setting_is_ignored_with_a_hint(name, meant):
    s, warnings = attnviz.from_query({name: "9"})
    assert s == attnviz.Settings()
    assert warnings == [
        f"`{name}` in the link is not a setting: ignored (did you mean `{meant}`?)."
    ]


def test_long_text_is_cut_with_a_warning():
    s, warnings = attnviz.from_query({"tokens": "a " * limits.MAX_TEXT_CHARS})
    assert len(s.text) == limits.MAX_TEXT_CHARS
    assert len(warnings) == 1 and str(limits.MAX_TEXT_CHARS) in warnings[0]


def test_tokens_win_over_n_with_a_warning():
    s, warnings = attnviz.from_query({"tokens": "a b", "n": "7"})
    assert s.tokens == ["a", "b"] and not s.generated
    assert len(warnings) == 1 and "`tokens`" in warnings[0]
    generated, warnings = attnviz.from_query({"n": "7"})
    assert generated.generated and generated.tokens == attnviz.generated_tokens(7)
    assert warnings == []


def test_values_are_read_loosely():
    s, warnings = attnviz.from_query(
        {"d_k": " 7 ", "mask": " Causal ", "scale": "OFF", "embedding": "onehot", "positions": "on"}
    )
    assert (s.d_k, s.mask, s.scale, s.embedding, s.positions) == (
        7,
        "causal",
        False,
        "one-hot",
        True,
    )
    assert warnings == []


def test_the_url_names_of_the_design_are_written():
    query = settings_query(attnviz.Settings())
    for name in ("tokens", "d_model", "d_k", "d_v", "seed", "mask", "scale", "temperature"):
        assert isinstance(query[name], str), name
    assert query["mask"] in ("none", "causal") and query["scale"] in ("on", "off")
    assert "n" not in query
    generated = settings_query(attnviz.Settings(generated=True, n=9))
    assert generated["n"] == "9" and "tokens" not in generated


text = st.text(max_size=200)
valid_settings = st.builds(
    attnviz.Settings,
    text=text,
    generated=st.booleans(),
    n=st.integers(*RANGES["n"]),
    d_model=st.integers(*RANGES["d_model"]),
    d_k=st.integers(*RANGES["d_k"]),
    d_v=st.integers(*RANGES["d_v"]),
    seed=st.integers(*RANGES["seed"]),
    embedding=st.sampled_from(EMBEDDINGS),
    positions=st.booleans(),
    mask=st.sampled_from(MASKS),
    scale=st.booleans(),
    # what the sidebar can hold: 6 significant digits, as it shows them
    temperature=st.floats(limits.MIN_TEMPERATURE, limits.MAX_TEMPERATURE).map(shown_temperature),
)


@FAST
@given(valid_settings)
def test_query_round_trips(s):
    back, warnings = attnviz.from_query(settings_query(s))
    assert warnings == []
    # The link carries the tokens that are used: the text, or n for t1..tn, not both.
    unused = {"text": attnviz.Settings().text} if s.generated else {"n": attnviz.Settings().n}
    assert back == dataclasses.replace(s, **unused)
    assert back.tokens == s.tokens


def test_compute_makes_the_example_of_the_settings():
    s = attnviz.Settings(mask="causal", positions=True, d_model=6, d_k=3, d_v=2, seed=4)
    ex = attnviz.compute(s)
    n = len(s.tokens)
    assert ex.tokens == s.tokens and ex.labels == attnviz.token_labels(s.tokens)
    np.testing.assert_array_equal(ex.E, attnviz.token_embeddings(s.tokens, 6, 4))
    np.testing.assert_array_equal(ex.P, attnviz.sinusoidal_positions(n, 6))
    np.testing.assert_array_equal(ex.result.X, ex.E + ex.P)
    np.testing.assert_array_equal(ex.result.mask, attnviz.causal_mask(n))
    assert ex.result.attention.shape == (n, n) and ex.result.output.shape == (n, 2)
    W_Q, _, _ = attnviz.projection_weights(6, 3, 2, 4)
    np.testing.assert_array_equal(ex.result.W_Q, W_Q)


def test_compute_with_one_hot_and_generated_tokens():
    ex = attnviz.compute(attnviz.Settings(generated=True, n=5, embedding="one-hot", d_model=5))
    np.testing.assert_array_equal(ex.E, np.eye(5))
    assert ex.P is None and ex.tokens == ["t1", "t2", "t3", "t4", "t5"]


def test_compute_without_tokens_raises():
    with pytest.raises(attnviz.AttentionInputError, match="there are no tokens"):
        attnviz.compute(attnviz.Settings(text="   "))


def test_only_the_first_max_tokens_are_used():
    s = attnviz.Settings(text="w " * (limits.MAX_TOKENS + 3))
    assert len(s.all_tokens) == limits.MAX_TOKENS + 3 and len(s.tokens) == limits.MAX_TOKENS
