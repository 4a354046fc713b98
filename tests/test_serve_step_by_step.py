"""Step by step's numbers (attnviz/serve/step_by_step.py), without a page: what the page's steps
draw for an edit, and the bytes of each download."""

import io
import json

import numpy as np

from attnviz.lessons.spread import Edit
from attnviz.links.shared import settings_query
from attnviz.serve.example import cached_example
from attnviz.serve.step_by_step import _spread, export_bytes, page_steps, unedited
from attnviz.settings import Settings

S = Settings(text="a b c d", d_k=7)


def test_without_an_edit_the_steps_are_the_examples_own():
    result, labels, found = page_steps(S, None)
    example = cached_example(S)
    assert result is example.result is unedited(S) and labels == example.labels and found is None


def test_an_edit_is_spread_once_and_its_steps_are_drawn():
    _spread.forget()
    edit = Edit(1, 2, 5.0)
    result, _, found = page_steps(S, edit)
    assert result is found.after and found.edit == edit
    assert found.after.X[1, 2] == 5.0 and found.before is cached_example(S).result
    assert page_steps(S, edit)[2] is found  # kept: the same Spread for every session
    assert _spread.kept() == [((S, edit), found)]


def test_each_download_holds_the_examples_numbers_and_its_link():
    example = cached_example(S)
    with np.load(io.BytesIO(export_bytes(S, "npz"))) as npz:
        assert np.array_equal(npz["attention"], example.result.attention)
    document = json.loads(export_bytes(S, "json"))
    assert document["query"] == settings_query(S) and document["query"]["d_k"] == "7"
    assert np.allclose(document["steps"]["output"], example.result.output)
    assert export_bytes(S, "csv")[:2] == b"PK"  # a zip of CSV files
