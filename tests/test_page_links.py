"""Every page's own link parameters (attnviz/links/<page>.py): each bad value is clamped or
ignored with a warning that quotes it (cut when huge), and a repeated name says which value
it used. Pure functions: no Streamlit, fast."""

import pytest

from attnviz.lessons.geometry import DEFAULT_KEYS, DEFAULT_VALUES
from attnviz.lessons.spread import Edit
from attnviz.limits import MAX_D_K, MAX_GPT_STEPS, MAX_GPT_TEXT_CHARS, MAX_PAIR_CHARS
from attnviz.links.edit import edit_from_query, edit_text
from attnviz.links.geometry import DEFAULT_D_K, GeometryChoice, choice_from_query
from attnviz.links.inside_a_chat_model import choices_from_query as chat
from attnviz.links.own_numbers import matrices_query, texts_from_query
from attnviz.links.real_model import DEFAULT_PAIR, PAIR_PARAMS, pair_from_query
from attnviz.links.shared import from_query, read_present
from attnviz.links.tiny_gpt import QUERY_NAMES as GPT_NAMES
from attnviz.links.tiny_gpt import choice_from_query as gpt_choice
from attnviz.links.tiny_gpt import default_choice
from attnviz.links.work_it_out import ExerciseChoice
from attnviz.links.work_it_out import choice_from_query as exercise

HUGE = "9" * 4000
DEFAULT_GEO = GeometryChoice()


def geometry(query):
    return choice_from_query(query)


def gpt(query):
    return gpt_choice(query, seed=0)


def edit(query):
    return edit_from_query(query, (4, 8))  # X with 4 rows and 8 columns


def pair(query):
    return pair_from_query(query)


def own(query):
    return texts_from_query(query)


# (reader, query, what the value must be, a fragment of the one warning)
BAD = {
    "geo_keys: a space splits a number": (
        geometry, {"geo_keys": "1 2,0;0,1;1,1"}, lambda c: c.keys == DEFAULT_KEYS, "not be read"
    ),
    "geo_keys: -2 .6 is two numbers": (
        geometry, {"geo_keys": "-2 .6,1;0,1;1,1"}, lambda c: c.keys == DEFAULT_KEYS, "geo_keys"
    ),
    "geo_keys: too few": (geometry, {"geo_keys": "1,0"}, lambda c: c.keys == DEFAULT_KEYS, "keys"),
    "geo_values: not numbers": (
        geometry, {"geo_values": "a,b"}, lambda c: c.values == DEFAULT_VALUES, "default values"
    ),
    "geo_dk: huge": (geometry, {"geo_dk": HUGE}, lambda c: c.d_k == MAX_D_K, "outside 1 to"),
    "geo_dk: not a number": (
        geometry, {"geo_dk": "two"}, lambda c: c.d_k == DEFAULT_D_K, "not a whole number"
    ),
    "geo_angle: not a number": (
        geometry, {"geo_angle": "x"}, lambda c: c.angle == DEFAULT_GEO.angle, "not a number"
    ),
    "geo_len: not a length": (
        geometry, {"geo_len": "-1"}, lambda c: c.length == DEFAULT_GEO.length, "length > 0"
    ),
    "gpt_task: unknown": (gpt, {"gpt_task": "chess"}, lambda c: c.task == "previous", "not one of"),
    "gpt_layers: huge": (gpt, {"gpt_layers": HUGE}, lambda c: c.n_layers == 2, "outside 1 to 2"),
    "gpt_heads: junk": (gpt, {"gpt_heads": "x"}, lambda c: c.n_heads == 2, "not a whole number"),
    "gpt_steps: huge": (
        gpt, {"gpt_steps": HUGE}, lambda c: c.steps == MAX_GPT_STEPS, "outside"
    ),
    "gpt_dmodel: not offered": (gpt, {"gpt_dmodel": "30"}, lambda c: c.d_model == 24, "not one of"),
    "gpt_mlp: junk": (gpt, {"gpt_mlp": "maybe"}, lambda c: c.mlp is False, "not one of on, off"),
    "gpt_text: too long": (
        gpt,
        {"gpt_task": "text", "gpt_text": "ab " * MAX_GPT_TEXT_CHARS},
        lambda c: len(c.text) == MAX_GPT_TEXT_CHARS,
        "characters long",
    ),
    "edit: not three numbers": (edit, {"edit": "1,2"}, lambda e: e is None, "token,dimension"),
    "edit: outside X": (edit, {"edit": "9,0,1"}, lambda e: e is None, "X has 4 rows"),
    "edit: huge value": (edit, {"edit": f"1,0,{HUGE}"}, lambda e: e is None, "must be a number"),
    "edit: out of range": (edit, {"edit": "0,0,1e9"}, lambda e: e is None, "from -100 to 100"),
    "model_a: empty": (pair, {"model_a": " "}, lambda p: p == DEFAULT_PAIR, "is empty"),
    "model_b: too long": (
        pair, {"model_b": "w" * 999}, lambda p: len(p[1]) == MAX_PAIR_CHARS, "are used"
    ),
    "labels: too long": (
        own, {"X": "1", "labels": "a" * 30_000}, lambda t: len(t["labels"]) == 20_000, "cut"
    ),
    "present: junk": (read_present, {"present": "maybe"}, lambda on: on is False, "on, off"),
    "ex_level: huge": (exercise, {"ex_level": HUGE}, lambda c: c.level == 5, "outside 1 to 5"),
    "ex_level: 0": (exercise, {"ex_level": "0"}, lambda c: c.level == 1, "using 1"),
    "ex_seed: negative": (exercise, {"ex_seed": "-3"}, lambda c: c.seed == 0, "outside 0 to"),
    "ex_seed: not a number": (
        exercise, {"ex_seed": "1.5"}, lambda c: c.seed == 0, "not a whole number"
    ),
    "ex_exp: junk": (exercise, {"ex_exp": "yes"}, lambda c: not c.exp_given, "own, given"),
    "temperature: junk": (chat, {"temperature": "hot"}, lambda c: c.temperature == 1, "a number"),
    "temperature: 0": (chat, {"temperature": "0"}, lambda c: c.temperature == 0.1, "outside"),
    "top_k: huge": (chat, {"top_k": HUGE}, lambda c: c.top_k == 1000, "outside 0 to 1000"),
    "pick: unknown": (chat, {"pick": "best"}, lambda c: c.pick == "likeliest", "not one of"),
    "generate: huge": (chat, {"generate": HUGE}, lambda c: c.generate == 32, "outside 0 to 32"),
    "head: 12": (chat, {"head": "12"}, lambda c: c.head == 8, "outside 0 to 8"),
    "prompt: too long": (
        chat, {"prompt": "a" * 30_000}, lambda c: len(c.prompt) == 20_000, "characters long"
    ),
}  # fmt: skip


@pytest.mark.parametrize(("read", "query", "check", "fragment"), BAD.values(), ids=list(BAD))
def test_a_bad_value_is_clamped_or_ignored_with_a_warning(read, query, check, fragment):
    value, warnings = read(query)
    assert check(value)
    assert len(warnings) == 1 and fragment in warnings[0], warnings
    assert len(warnings[0]) < 400  # a 4,000-character value is quoted cut, not in full


REPEATED = [
    (geometry, "geo_keys", "2,0;0,1;1,1"),
    (geometry, "geo_values", "1,0;0,1;1,1;0,0"),
    (geometry, "geo_dk", "8"),
    (geometry, "geo_angle", "40"),
    (geometry, "geo_len", "2"),
    *[(gpt, name, value)
      for name, value in zip(GPT_NAMES[:-1], ["sort", "1", "1", "200", "16", "on"], strict=True)],
    (edit, "edit", "1,0,2.5"),
    *[(pair, name, "a dog") for name in PAIR_PARAMS],
    *[(own, name, "1") for name in ("X", "W_Q", "W_K", "W_V")],
    (lambda q: from_query(q), "d_k", "3"),
    (read_present, "present", "on"),
    *[(exercise, name, value) for name, value in (("ex_level", "3"), ("ex_seed", "9"),
                                                 ("ex_exp", "given"))],
]  # fmt: skip


@pytest.mark.parametrize(("read", "name", "value"), REPEATED, ids=[r[1] for r in REPEATED])
def test_a_repeated_parameter_says_which_value_it_used(read, name, value):
    _, warnings = read({name: ["0", value]})
    assert warnings[0] == f"`{name}` appears 2 times in the link: using the last, `{value}`."
    alone = read({name: value})[1]
    assert alone == warnings[1:]  # the last value is read as if it came alone


def test_the_writers_read_back():
    choice = GeometryChoice(keys=((1.5, 0.0), (0.0, -2.0), (3.0, 3.0)),
                            values=((1.0, 1.0), (0.0, 0.5), (-1.0, 0.0)), d_k=300)  # fmt: skip
    assert choice_from_query(choice.to_query()) == (choice, [])
    run = default_choice("text")
    assert gpt_choice(run.to_query()) == (run, [])
    tiny = Edit(1, 2, 1e-05)
    assert edit_text(tiny) == "1,2,1e-05" and edit({"edit": edit_text(tiny)}) == (tiny, [])
    found = {"X": [[1.0, 0.5]], "W_Q": [[1.0]], "W_K": [[2.0]], "W_V": [[-1.0]]}
    texts, warnings = texts_from_query(matrices_query(found, "  one  "))
    assert texts == {"X": "1,0.5", "W_Q": "1", "W_K": "2", "W_V": "-1", "labels": "one"}
    assert warnings == []
    for ex in (ExerciseChoice(4, 123, True), ExerciseChoice(2, 0, False)):
        assert exercise(ex.to_query()) == (ex, [])
