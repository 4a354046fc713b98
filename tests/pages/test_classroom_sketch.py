"""The Classroom's "sketch the row" through AppTest: the lecturer asks a row, phones sketch and
submit (locked), the lecturer shows snapshots, reveals; the drawn mean, truth and distances are
the sketches' and the core's, on the projector and on each phone."""

import numpy as np
import pytest

import attnviz
from attnviz.classroom.sketch import variant_settings
from attnviz.ui.pages.classroom_shared import ROOM, room_store
from attnviz.ui.sketch import LEVELS
from tests.helpers import chart_specs, decode, run, text_of
from tests.pages.test_classroom import click

pytestmark = pytest.mark.usefixtures("empty_rooms")

PAGE = "app_pages/Classroom.py"
SKETCHES = [(0, 5, 1, 2, 0, 0), (1, 1, 1, 1, 0, 0)]  # query 3 (on) under the causal mask
TRUTH = attnviz.compute(variant_settings(attnviz.Settings(), "causal")).result.attention[3]


def said(at):
    """The page's text without markdown's escapes."""
    return text_of(at).replace("\\", "")


def xs(at, key, trace=0):
    return decode(chart_specs(at)[key]["data"][trace]["x"]).astype(float)


def test_a_sketch_through_the_room():
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    lecturer.selectbox(key="cls_sk_query").set_value(3)
    lecturer.selectbox(key="cls_sk_variant").set_value("causal")
    click(lecturer, "cls_sk_ask")
    code = lecturer.session_state[ROOM]
    assert room_store().room(code).kind == "sketch:causal:3"
    assert "Sketch the row of A for query on (with the causal mask)" in said(lecturer)
    students = [run(PAGE, {"room": code}) for _ in SKETCHES]
    for student, levels in zip(students, SKETCHES, strict=True):
        key = f"cls_sk_{room_store().room(code).question_no}"
        assert "cls_room_A" not in chart_specs(student)  # A would show the row asked
        drawn = chart_specs(student)[f"{key}_chart_0"]
        assert decode(drawn["data"][0]["x"]).tolist() == [1, 1, 1, 1, 0, 0]  # masked at 0
        student.session_state[LEVELS + key] = levels  # what the taps set (the browser test taps)
        student.run()
        click(student, f"{key}_submit")
        assert "Sketch sent. It is locked" in said(student)
        assert f"{key}_submit" not in {b.key for b in student.button}
    assert room_store().sketches(code) == tuple(sorted(SKETCHES))
    lecturer.run()
    assert [m.value for m in lecturer.metric] == ["2 of 2"]
    click(lecturer, "cls_sk_pick_closest")
    click(lecturer, "cls_sk_pick_farthest")
    weights = [np.array(s) / sum(s) for s in SKETCHES]
    distances = [0.5 * np.abs(w - TRUTH).sum() for w in weights]
    order = np.argsort(distances)
    specs = chart_specs(lecturer)["cls_sk_snaps"]["data"]
    np.testing.assert_allclose(decode(specs[0]["x"]).astype(float), weights[order[0]])
    np.testing.assert_allclose(decode(specs[1]["x"]).astype(float), weights[order[-1]])
    assert "cls_sk_mean" not in chart_specs(lecturer)  # no truth before the reveal
    click(lecturer, "cls_sk_reveal")
    np.testing.assert_allclose(xs(lecturer, "cls_sk_mean"), np.mean(weights, axis=0))
    spread = decode(chart_specs(lecturer)["cls_sk_mean"]["data"][0]["error_x"]["array"])
    np.testing.assert_allclose(spread.astype(float), np.std(weights, axis=0))
    np.testing.assert_allclose(xs(lecturer, "cls_sk_mean", 1), TRUTH, atol=1e-12)
    np.testing.assert_allclose(sorted(xs(lecturer, "cls_sk_dist", 1)), sorted(distances))
    top = int(np.argmax(TRUTH))
    right = sum(w[top] == w.max() and (w == w.max()).sum() == 1 for w in weights)  # ties: wrong
    assert f"The class put {np.mean(weights, axis=0)[top]:.2f} on" in said(lecturer)
    assert f"{right} of 2 phones picked the right largest key" in said(lecturer)
    for student, w, d in zip(students, weights, distances, strict=True):
        student.run()
        assert not student.exception
        np.testing.assert_allclose(xs(student, "cls_sk_mine"), w)
        np.testing.assert_allclose(xs(student, "cls_sk_mine", 1), TRUTH, atol=1e-12)
        assert f"Your distance to the true row: {d:.2f}" in said(student)


def test_snapshots_from_the_grid_and_their_limit():
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    click(lecturer, "cls_sk_ask")  # the first token, plain
    code = lecturer.session_state[ROOM]
    sketches = [(1, 0, 0, 0, 0, 0), (0, 5, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0), (2, 2, 1, 0, 0, 0)]
    for k, levels in enumerate(sketches):
        room_store().join(code, f"s{k}")
        room_store().answer_sketch(code, f"s{k}", levels)
    lecturer.run()
    assert "cls_sk_snaps" not in chart_specs(lecturer)
    shown = sorted(sketches)  # the grid shows the store's order: sorted, anonymous
    grid = chart_specs(lecturer)["cls_sk_grid_chart"]["data"]
    assert [decode(t["x"]).astype(float).tolist() for t in grid] == [
        (np.array(s) / sum(s)).tolist() for s in shown
    ]
    lecturer.multiselect(key="cls_sk_grid").set_value([2, 4]).run()
    drawn = chart_specs(lecturer)["cls_sk_snaps"]["data"]
    assert [decode(t["x"]).astype(float).tolist() for t in drawn] == [
        (np.array(shown[k]) / sum(shown[k])).tolist() for k in (1, 3)
    ]
    click(lecturer, "cls_sk_pick_most_common_shape")  # (1, 1, 0 ...): nearest the others
    assert len(chart_specs(lecturer)["cls_sk_snaps"]["data"]) == 3
    click(lecturer, "cls_sk_pick_farthest")  # (0, 5, 0 ...), not shown yet: one too many
    assert any("at most 3 sketches" in w.value for w in lecturer.warning)
    assert len(chart_specs(lecturer)["cls_sk_snaps"]["data"]) == 3
    click(lecturer, "cls_sk_clear")
    assert "cls_sk_snaps" not in chart_specs(lecturer)


def test_a_sketch_slide_runs_on_the_clicker_with_the_picks_for_the_lecturer_only(monkeypatch):
    """A deck's ``question=sketch&query=on&mask=causal`` slide asks that sketch on arrival;
    → shows the three snapshots (closest, farthest, most common: each sketch once), → again
    reveals, with the class's result drawn before the room's columns; → then leaves for the
    next slide. The picks sit in the lecturer-only panel, and a repeated pick is said."""
    from tests.helpers import as_browser
    from tests.pages.test_classroom_deck import next_link

    deck = "Home;Classroom?question=sketch&query=on&mask=causal;Why_scale/1"
    query = {"deck": deck, "slide": "2", "present": "on", "question": "sketch", "query": "on"}
    as_browser(monkeypatch, "lecturer-sketches")
    lecturer = run(PAGE, query | {"mask": "causal"})
    click(lecturer, "cls_open")  # opened on the slide: the deck may ask there
    code = lecturer.session_state[ROOM]
    assert room_store().room(code).kind == "sketch:causal:3"
    monkeypatch.undo()
    for k, levels in enumerate(SKETCHES):
        room_store().join(code, f"phone{k:012d}")
        room_store().answer_sketch(code, f"phone{k:012d}", levels)
    as_browser(monkeypatch, "lecturer-sketches")
    lecturer.run()
    assert lecturer.button(key="step_next").label == "Show sketches ▶"
    picks = [e for e in lecturer.expander if "For the lecturer only: the sketches" in e.label]
    assert picks and "cls_sk_pick_closest" in {b.key for b in picks[0].button}
    click(lecturer, "step_next")
    shown = chart_specs(lecturer)["cls_sk_snaps"]["data"]
    assert len(shown) == len(set(SKETCHES))  # two phones: closest and farthest, no repeat
    click(lecturer, "cls_sk_pick_most_common_shape")  # already shown: said, not added
    assert "is the same sketch as Sketch" in said(lecturer)
    assert lecturer.button(key="step_next").label == "Reveal ▶"
    click(lecturer, "step_next")
    assert room_store().room(code).phase == "revealed"
    charts = list(chart_specs(lecturer))
    assert charts[0] == "cls_sk_mean"  # the first chart of the page: the top of the screen
    assert any(h.startswith("./Why_scale?") and "slide=3" in h for h in next_link(lecturer))
