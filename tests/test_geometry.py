"""Attention as geometry: the math (every frame is the core's self_attention, length is an
inverse temperature), the figure with its sliders and frames, and the page's URL form."""

import json
from dataclasses import replace

import numpy as np
import pytest

from attnviz import AttentionInputError, self_attention
from attnviz.charts.dot_products import dot_product_histogram
from attnviz.charts.geometry import BLOCK, geometry_figure
from attnviz.lessons.dot_products import random_pairs
from attnviz.lessons.geometry import (
    DEFAULT_KEYS,
    DEFAULT_VALUES,
    attend,
    geometry_grid,
    length_as_temperature,
    length_beats_angle,
    peak_angles,
    query_vectors,
    top_weights,
    winners,
)
from attnviz.limits import GEO_ANGLES, GEO_LENGTHS, MAX_GEO_KEYS
from attnviz.links.geometry import GeometryChoice, choice_from_query, start_length
from tests.helpers import decode
from tests.reference import attend as reference_attend

KEYS, VALUES = np.array(DEFAULT_KEYS), np.array(DEFAULT_VALUES)


@pytest.fixture(scope="module")
def grid():
    return geometry_grid(DEFAULT_KEYS, DEFAULT_VALUES)


def one_query(q, keys, temperature=1.0):
    """self_attention on the plain 2-D vectors: X = [q; k_1; ...; k_n], W_Q = W_K = W_V = I,
    query 0 allowed to see only the keys. -> (scores, scaled scores, weights) of row 0."""
    X = np.vstack([q, keys])
    n = len(X)
    mask = np.zeros((n, n), dtype=bool)
    mask[0, 1:] = True
    r = self_attention(X, np.eye(2), np.eye(2), np.eye(2), mask=mask, temperature=temperature)
    return r.scores[0, 1:], r.scaled_scores[0, 1:], r.attention[0, 1:]


# --- The math ---------------------------------------------------------------------------------


def test_every_frame_is_self_attention_for_that_query_alone(grid):
    assert grid.weights.shape == (len(GEO_LENGTHS), GEO_ANGLES, len(KEYS))
    for li in range(len(GEO_LENGTHS)):
        for ai in range(0, GEO_ANGLES, 5):
            q = grid.queries[li, ai]
            scores, scaled, weights = one_query(q, KEYS)
            np.testing.assert_allclose(grid.scores[li, ai], scores, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(grid.scaled_scores[li, ai], scaled, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(grid.weights[li, ai], weights, rtol=1e-12, atol=1e-15)
            ref = reference_attend([q], KEYS, VALUES)  # one query, the formula without attnviz
            np.testing.assert_allclose(grid.weights[li, ai], ref["attention"][0], rtol=1e-12)
            np.testing.assert_allclose(
                grid.outputs[li, ai], ref["output"][0], rtol=1e-12, atol=1e-15
            )


def test_the_grid_points_the_query_where_it_says(grid):
    assert grid.angles.tolist() == [10.0 * i for i in range(36)]
    np.testing.assert_allclose(
        np.linalg.norm(grid.queries, axis=2),
        np.repeat(np.array(GEO_LENGTHS)[:, None], GEO_ANGLES, axis=1),
    )
    np.testing.assert_allclose(grid.queries[2, 9], [0, 1], atol=1e-15)  # length 1 at 90°
    np.testing.assert_allclose(grid.weights.sum(axis=2), 1, rtol=1e-12)


def test_a_longer_query_is_exactly_a_lower_temperature(grid):
    # softmax(l q.k / sqrt(2)) = softmax((q.k / sqrt(2)) / T) with T = 1 / l, checked against
    # self_attention on the 2-D vectors with that temperature, for every length and angle
    unit = query_vectors(grid.angles, [1.0])[0]
    for li, length in enumerate(GEO_LENGTHS):
        for ai in range(GEO_ANGLES):
            _, _, cooler = one_query(unit[ai], KEYS, temperature=1 / length)
            np.testing.assert_allclose(grid.weights[li, ai], cooler, rtol=1e-12, atol=1e-15)
    assert length_as_temperature(grid).max() < 1e-12
    tops = top_weights(grid)
    assert np.all(np.diff(tops) > 0), tops  # each doubling of |q| sharpens the rows


def test_the_winner_does_not_depend_on_the_length(grid):
    for li in range(len(GEO_LENGTHS)):
        np.testing.assert_array_equal(grid.weights[li].argmax(axis=1), winners(grid))


def test_the_weight_follows_the_angle_for_equal_keys():
    keys = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    grid = geometry_grid(keys, DEFAULT_VALUES)
    np.testing.assert_array_equal(peak_angles(grid), [0, 90, 180, 270])
    assert length_beats_angle(grid) is None  # equal lengths: the nearest key always wins


def test_a_long_key_off_angle_beats_the_aligned_one(grid):
    case = length_beats_angle(grid)
    assert (case.angle, case.winner, case.aligned) == (90.0, 2, 1)  # at 90°: k3 beats k2
    assert case.aligned_gap == 0 and case.winner_gap == pytest.approx(60.02, abs=0.01)
    assert (grid.weights[:, 9, 2] > grid.weights[:, 9, 1]).all()  # at every length


def test_attend_runs_one_self_attention_for_many_queries():
    queries = np.array([[1.0, 2.0], [-0.5, 0.3], [0.0, 0.0]])
    att = attend(queries, KEYS, VALUES, temperature=0.5)
    for i, q in enumerate(queries):
        ref = reference_attend([q], KEYS, VALUES, temperature=0.5)
        np.testing.assert_allclose(att.weights[i], ref["attention"][0], rtol=1e-12)
        np.testing.assert_allclose(att.outputs[i], ref["output"][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(att.weights[2], 0.25)  # the zero query: uniform
    assert not att.weights.flags.writeable


@pytest.mark.parametrize(
    ("keys", "values", "fragment"),
    [
        ([(1, 0), (0, 1)], [(1, 0), (0, 1)], "give 3 to 6 keys"),
        ([(1, 0)] * (MAX_GEO_KEYS + 1), [(1, 0)] * (MAX_GEO_KEYS + 1), "give 3 to 6 keys"),
        ([(1, 0, 0)] * 3, [(1, 0)] * 3, "2-D vectors"),
        ([(1, 0)] * 3, [(1, 0)] * 4, "each key needs its value"),
        ([(11, 0)] * 3, [(1, 0)] * 3, "within -10 to 10"),
        ([(np.nan, 0)] * 3, [(1, 0)] * 3, "finite"),
    ],
)
def test_bad_keys_say_what_to_fix(keys, values, fragment):
    with pytest.raises(AttentionInputError, match=fragment):
        geometry_grid(keys, values)


def test_random_pairs_grow_like_sqrt_d_k_and_the_division_undoes_it():
    for d_k in (2, 64, 512):
        p = random_pairs(d_k)
        assert p.scores.std() == pytest.approx(np.sqrt(d_k), rel=0.1)
        assert p.scaled_scores.std() == pytest.approx(1, rel=0.1)
        assert p.query_lengths.mean() == pytest.approx(np.sqrt(d_k), rel=0.2)
        assert p.cosines.std() == pytest.approx(1 / np.sqrt(d_k), rel=0.25)
    big = random_pairs(512)
    assert big.top_weight.mean() > 0.9 > 0.6 > big.top_weight_scaled.mean()
    np.testing.assert_array_equal(random_pairs(64).scores, random_pairs(64).scores)
    with pytest.raises(AttentionInputError, match="d_k"):
        random_pairs(513)


# --- The figure -------------------------------------------------------------------------------


def spec(fig):
    return json.loads(fig.to_json())


def numbers(value):
    return np.asarray(decode(value), dtype=float)


def test_the_figure_holds_every_angle_and_length_as_frames(grid):
    s = spec(geometry_figure(grid, start_angle=3, start_length=2))
    names = [f["name"] for f in s["frames"]]
    assert names == [f"a{i}" for i in range(GEO_ANGLES)] + [f"l{i}" for i in range(5)]
    angle, length = s["layout"]["sliders"]
    assert [step["args"][0] for step in angle["steps"]] == [[f"a{i}"] for i in range(GEO_ANGLES)]
    assert [step["label"] for step in length["steps"]] == ["0.25", "0.5", "1", "2", "4"]
    assert (angle["active"], length["active"]) == (3, 2)
    assert all(step["method"] == "animate" for step in angle["steps"] + length["steps"])
    # turning only changes numbers (drawn trace by trace); stretching shows other traces
    assert {step["args"][1]["frame"]["redraw"] for step in angle["steps"]} == {False}
    assert {step["args"][1]["frame"]["redraw"] for step in length["steps"]} == {True}
    data = s["data"]
    for frame in s["frames"][:GEO_ANGLES]:
        ai = int(frame["name"][1:])
        for trace, index in zip(frame["data"], frame["traces"], strict=True):
            assert trace["type"] == data[index]["type"]  # a frame never changes a trace's kind
            if trace["type"] == "bar":
                li = (index - first_block(data)) // BLOCK
                np.testing.assert_allclose(numbers(trace["x"]), grid.weights[li, ai], atol=5e-5)
            if data[index].get("name") == "numbers":  # the table: θ, q·k, q·k / √2, a
                li = (index - first_block(data)) // BLOCK
                theta, score, scaled, weight = table_columns(trace)
                np.testing.assert_allclose(weight, grid.weights[li, ai], atol=5e-4)
                np.testing.assert_allclose(score, grid.scores[li, ai], atol=5e-4)
                np.testing.assert_allclose(scaled, grid.scaled_scores[li, ai], atol=5e-4)
                q, K = grid.queries[li, ai], grid.keys
                cos = K @ q / (np.linalg.norm(K, axis=1) * np.linalg.norm(q))
                np.testing.assert_allclose(theta, np.degrees(np.arccos(cos)), atol=0.5)


def table_columns(trace):
    """(4, n) floats of the table's changing columns: θ in degrees, q·k, q·k / √2, a."""
    text = [float(v.rstrip("°")) for v in trace["text"]]
    return np.array(text).reshape(-1, 4).T


def first_block(data):
    return next(i for i, t in enumerate(data) if t["type"] == "bar") - 2  # keys, query, bars


def test_the_length_slider_shows_one_lengths_traces(grid):
    s = spec(geometry_figure(grid, start_angle=0, start_length=1))
    data, first = s["data"], first_block(s["data"])
    shown = [i for i, t in enumerate(data) if i >= first and t.get("visible", True)]
    assert shown == list(range(first + BLOCK, first + 2 * BLOCK))
    for li in range(5):
        frame = s["frames"][GEO_ANGLES + li]
        on = [i for t, i in zip(frame["data"], frame["traces"], strict=True) if t["visible"]]
        assert on == list(range(first + li * BLOCK, first + (li + 1) * BLOCK))
        assert set(frame["data"][0]) == {"type", "visible"}  # it changes nothing else


def test_the_first_drawing_is_the_start_angle_and_length(grid):
    s = spec(geometry_figure(grid, start_angle=9, start_length=4))
    data, first = s["data"], first_block(s["data"])
    bars = data[first + 4 * BLOCK + 2]
    np.testing.assert_allclose(numbers(bars["x"]), grid.weights[4, 9], atol=5e-5)
    query = data[first + 4 * BLOCK + 1]
    np.testing.assert_allclose(numbers(query["x"]), [0, 0], atol=1e-4)
    np.testing.assert_allclose(numbers(query["y"]), [0, 4], atol=1e-4)


def test_a_heavier_key_is_drawn_wider(grid):
    s = spec(geometry_figure(grid, start_angle=0, start_length=4))
    keys = s["data"][first_block(s["data"]) + 4 * BLOCK]
    xs = [np.nan if v is None else v for v in keys["x"]]
    ys = [np.nan if v is None else v for v in keys["y"]]
    outlines = np.split(np.c_[xs, ys], np.flatnonzero(np.isnan(xs)) + 1)
    widths = [np.linalg.norm(o[0] - o[6]) for o in outlines if len(o) > 7]  # shaft at the origin
    assert np.argmax(widths) == np.argmax(grid.weights[4, 0]) == 0


def test_projector_mode_text_is_large_and_the_figure_stays_modest(grid):
    s = spec(geometry_figure(grid, text_px=20))
    assert s["layout"]["font"]["size"] >= 18
    assert all(sl["font"]["size"] >= 18 for sl in s["layout"]["sliders"])
    texts = [t for t in s["data"] if t.get("mode") == "text"]  # labels, the table
    assert len(texts) == 3 + 5 and all(t["textfont"]["size"] >= 18 for t in texts)
    # the whole figure under the stepper's bar on a 720-px screen; no table, whose 20-px rows
    # would run together (the bars print the weights)
    assert s["layout"]["height"] <= 560
    table = [t for t in texts if t.get("yaxis") == "y4"]
    assert table and all(not any(t["text"]) for t in table)
    six = geometry_grid((*DEFAULT_KEYS, (1, 1), (2, -2)), (*DEFAULT_VALUES, (1, 1), (-1, 1)))
    assert len(geometry_figure(six).to_json()) < 400_000  # every frame, at the most keys


def test_the_histogram_holds_the_random_pairs():
    p = random_pairs(16)
    s = spec(dot_product_histogram(p))
    unscaled, scaled = s["data"]
    np.testing.assert_allclose(numbers(unscaled["x"]), p.scores, rtol=1e-6)
    np.testing.assert_allclose(numbers(scaled["x"]), p.scaled_scores, rtol=1e-6)
    assert [shape["x0"] for shape in s["layout"]["shapes"]] == [-4, 4]


# --- The link ---------------------------------------------------------------------------------


def test_a_choice_survives_its_link():
    choice = GeometryChoice(keys=((1.5, 0.0), (0.0, -2.0), (3.0, 3.0)),
                            values=((1.0, 1.0), (0.0, 0.5), (-1.0, 0.0)), angle=7, length=1,
                            d_k=300)  # fmt: skip
    query = choice.to_query()
    assert query["geo_keys"] == "1.5,0;0,-2;3,3"
    assert (query["geo_angle"], query["geo_len"]) == ("70", "0.5")
    assert choice_from_query(query) == (choice, [])
    assert set(GeometryChoice().to_query()) == {"geo_keys", "geo_values", "geo_dk"}
    # at its start length (4 for these keys: the longest is |(3, 3)| = 4.24) the link omits it
    start = replace(choice, length=GEO_LENGTHS.index(4.0))
    assert "geo_len" not in start.to_query() and choice_from_query(start.to_query())[0] == start


@pytest.mark.parametrize(
    ("keys", "length"),
    [(DEFAULT_KEYS, 2.0), (((0.1, 0.0), (0.0, 0.2), (0.1, 0.1)), 0.25), (((4.0, 0.0),) * 3, 4.0)],
)
def test_the_query_starts_about_as_long_as_the_longest_key(keys, length):
    """Its arrow no shorter than half the longest key's (the lengths offered double), and no
    longer than it, unless every key is shorter than the shortest length offered."""
    start = GEO_LENGTHS[start_length(keys)]
    longest = max(np.hypot(*k) for k in keys)
    assert start == length
    assert start <= longest or start == GEO_LENGTHS[0]
    assert start > longest / 2 or start == GEO_LENGTHS[0]
    assert choice_from_query({"geo_keys": ";".join(f"{x:g},{y:g}" for x, y in keys)})[
        0
    ].length == start_length(keys)


@pytest.mark.parametrize(
    ("query", "fragment", "expect"),
    [
        ({"geo_keys": "1,0;0,1"}, "has 2 keys", {"keys": DEFAULT_KEYS}),
        ({"geo_keys": ";".join(["1,1"] * 8)}, "using the first 6", {"keys": ((1.0, 1.0),) * 6}),
        ({"geo_keys": "a,b;1,1;2,2"}, "could not be read", {"keys": DEFAULT_KEYS}),
        ({"geo_keys": "1,0,0;0,1,0;1,1,1"}, "not 2 (x, y)", {"keys": DEFAULT_KEYS}),
        ({"geo_keys": "50,0;0,1;1,1"}, "clamped", {"keys": ((10.0, 0.0), (0.0, 1.0), (1.0, 1.0))}),
        (
            {"geo_values": "1,1"},
            "1 value for 4 keys",
            {"values": ((1.0, 1.0), *DEFAULT_VALUES[1:])},
        ),
        ({"geo_angle": "45"}, "10° steps", {"angle": 4}),
        ({"geo_angle": "-90"}, "", {"angle": 27}),
        ({"geo_angle": "x`y"}, "geo_angle=x'y", {"angle": 3}),
        ({"geo_len": "3"}, "not one of the lengths", {"length": 4}),
        ({"geo_len": "0"}, "not a length > 0", {"length": GeometryChoice().length}),
        ({"geo_dk": "9999"}, "outside 1 to 512", {"d_k": 512}),
        ({"geo_dk": "two"}, "not a whole number", {"d_k": 64}),
    ],
)
def test_bad_link_values_are_replaced_with_a_warning(query, fragment, expect):
    choice, warnings = choice_from_query(query)
    for field, value in expect.items():
        assert getattr(choice, field) == value
    if fragment:
        assert any(fragment in w for w in warnings), warnings
    else:
        assert warnings == []


def test_the_output_stays_inside_the_drawn_hull_of_the_values(grid):
    edited = geometry_grid(DEFAULT_KEYS, [(1, 0), (0.2, 0.1), (-1, 0.5), (0, -1)])  # one inside
    for g, n_corners in ((grid, 4), (edited, 3)):
        s = spec(geometry_figure(g))
        hull = next(t for t in s["data"] if t.get("fill") == "toself" and t.get("xaxis") == "x2")
        corners = np.c_[numbers(hull["x"]), numbers(hull["y"])]
        assert len(corners) == n_corners + 1  # closed; a value inside is not a corner
        edges = np.diff(corners, axis=0)  # counter-clockwise: every output left of every edge
        rel = g.outputs.reshape(-1, 1, 2) - corners[None, :-1]
        cross = edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0]
        assert (cross >= -1e-9).all()
