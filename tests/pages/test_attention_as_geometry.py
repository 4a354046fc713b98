"""The attention-as-geometry page through AppTest: the figure holds the core's weights for every
angle and length, the table and the link set the keys, bad values warn, d_k draws new pairs."""

import numpy as np
import pytest

from attnviz import self_attention
from attnviz.lessons.geometry import DEFAULT_KEYS, query_vectors
from attnviz.limits import GEO_ANGLES, GEO_LENGTHS
from attnviz.links.geometry import start_length
from tests.helpers import STEP, chart_specs, decode, notices, run, text_of

GEO = "app_pages/Attention_as_geometry.py"
TABLE = "geo_table"


def weights_of(q, keys):
    """Row 0 of self_attention on the plain 2-D vectors [q; keys], query 0 seeing only keys."""
    X = np.vstack([q, keys])
    mask = np.zeros((len(X), len(X)), dtype=bool)
    mask[0, 1:] = True
    return self_attention(X, np.eye(2), np.eye(2), np.eye(2), mask=mask).attention[0, 1:]


def drawn_weights(spec):
    """{(length index, angle index): weights} from the figure's angle frames, and the weights
    drawn first (the visible bars)."""
    frames = {}
    for frame in spec["frames"]:
        if frame["name"].startswith("a"):  # an angle frame: one bar trace per length, in order
            bars = [t for t in frame["data"] if t["type"] == "bar"]
            for li, trace in enumerate(bars):
                frames[li, int(frame["name"][1:])] = np.asarray(decode(trace["x"]), float)
    shown = next(t for t in spec["data"] if t["type"] == "bar" and t.get("visible"))
    return frames, np.asarray(decode(shown["x"]), float)


def assert_core_weights(spec, keys):
    frames, _ = drawn_weights(spec)
    assert len(frames) == len(GEO_LENGTHS) * GEO_ANGLES
    queries = query_vectors(np.arange(GEO_ANGLES) * 10.0, GEO_LENGTHS)
    for (li, ai), weights in frames.items():
        np.testing.assert_allclose(weights, weights_of(queries[li, ai], keys), atol=5e-5)


def edit(at, **state):
    """Seed the table's edit state (edited_rows, added_rows, deleted_rows) and rerun."""
    at.session_state[TABLE] = {"edited_rows": {}, "added_rows": [], "deleted_rows": []} | state
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_draws_the_cores_weights_for_every_angle_and_length():
    at = run(GEO)
    assert not at.warning and not at.error
    specs = chart_specs(at)
    assert set(specs) == {"geometry", "geo_dk_chart"}
    assert_core_weights(specs["geometry"], np.array(DEFAULT_KEYS))
    _, shown = drawn_weights(specs["geometry"])  # at 30°, as long as fits the longest key
    start = GEO_LENGTHS[start_length(DEFAULT_KEYS)]
    assert start == 2.0  # the longest default key is |(-2.6, 1.5)| = 3.0
    np.testing.assert_allclose(
        shown, weights_of(query_vectors([30], [start])[0, 0], DEFAULT_KEYS), atol=5e-5
    )
    sliders = specs["geometry"]["layout"]["sliders"]
    assert [s["active"] for s in sliders] == [3, GEO_LENGTHS.index(start)]
    assert at.query_params["geo_keys"] == "2,0;0,1;-2.6,1.5;0,-1.5"
    assert at.query_params["geo_values"] == "1,0;0,1;-1,0;0,-1"
    assert at.query_params["geo_dk"] == "64"
    assert at.query_params["tokens"] == "the cat sat on the mat"  # the sidebar's stay
    text = text_of(at)
    assert "chosen by hand, not learned" in text
    assert "uses none of the sidebar's settings" in " ".join(c.value for c in at.sidebar.caption)


def test_the_points_are_stated_from_the_numbers():
    said = notices(run(GEO))
    assert "peaks at k1 0°, k2 70°, k3 160°, k4 260°" in said
    assert "are the same numbers, to the last bit" in said  # length = 1 / temperature
    assert "0.33 at length 0.25" in said and "0.89 at length 4" in said
    assert "At 90° the query is 0° from k2, yet k3, 60° away" in said
    assert "In d_k = 64 dimensions a random query is about 8.0 long" in said


def test_the_link_sets_the_keys_values_and_where_the_query_starts():
    keys = "1,0;0,2;-1,-1;0.5,0.5"
    at = run(GEO, {"geo_keys": keys, "geo_values": "1,1;2,0;0,-1;3,3", "geo_angle": "90",
                   "geo_len": "2", "geo_dk": "256"})  # fmt: skip
    assert not at.warning
    spec = chart_specs(at)["geometry"]
    K = np.array([[1, 0], [0, 2], [-1, -1], [0.5, 0.5]])
    assert_core_weights(spec, K)
    assert [s["active"] for s in spec["layout"]["sliders"]] == [9, 3]
    _, shown = drawn_weights(spec)
    np.testing.assert_allclose(shown, weights_of([0, 2], K), atol=5e-5)
    assert at.query_params["geo_keys"] == keys and at.query_params["geo_angle"] == "90"
    assert at.slider(key="geo_dk").value == 256


def test_bad_link_values_warn_and_the_page_still_draws():
    at = run(GEO, {"geo_keys": "1,0;zz", "geo_len": "3", "geo_dk": "0"})
    warned = " ".join(w.value for w in at.warning)
    assert "could not be read" in warned and "lengths offered" in warned
    assert "outside 1 to 512" in warned
    assert_core_weights(chart_specs(at)["geometry"], np.array(DEFAULT_KEYS))
    assert at.query_params["geo_keys"] == "2,0;0,1;-2.6,1.5;0,-1.5"  # the link is mended
    assert at.query_params["geo_dk"] == "1"


def test_editing_the_table_moves_the_keys_and_the_link():
    at = edit(run(GEO), edited_rows={"0": {"key x": 3.0}, "3": {"value y": 2.5}})
    keys = np.array(DEFAULT_KEYS)
    keys[0, 0] = 3
    assert_core_weights(chart_specs(at)["geometry"], keys)
    assert at.query_params["geo_keys"] == "3,0;0,1;-2.6,1.5;0,-1.5"
    assert at.query_params["geo_values"] == "1,0;0,1;-1,0;0,2.5"
    edit(at, added_rows=[{"key x": 1.0, "key y": 1.0, "value x": 0.0, "value y": 0.0}])
    assert at.query_params["geo_keys"].endswith(";1,1")


def test_too_few_or_too_many_rows_are_said_not_crashed():
    at = edit(run(GEO), deleted_rows=[0, 1])
    assert any("2 complete rows" in w.value for w in at.warning)
    assert "geometry" not in chart_specs(at)
    row = {"key x": 1.0, "key y": 0.5, "value x": 0.0, "value y": 0.0}
    at = edit(run(GEO), added_rows=[row, row, row])
    assert any("uses the first 6" in w.value for w in at.warning)
    assert at.query_params["geo_keys"].count(";") == 5
    at.button(key="geo_reset").click()
    at.run()
    assert at.query_params["geo_keys"] == "2,0;0,1;-2.6,1.5;0,-1.5"
    assert not at.warning


def test_the_d_k_slider_draws_new_pairs():
    at = run(GEO)
    at.slider(key="geo_dk").set_value(256)
    at.run()
    assert at.query_params["geo_dk"] == "256"
    hist = chart_specs(at)["geo_dk_chart"]
    scores = np.asarray(decode(hist["data"][0]["x"]), float)
    assert scores.std() == pytest.approx(16, rel=0.1)
    assert "In d_k = 256 dimensions" in notices(at)


def test_projector_mode_keeps_every_label_readable_and_no_sidebar_settings():
    at = run(GEO, {"present": "on"})
    spec = chart_specs(at)["geometry"]
    assert spec["layout"]["font"]["size"] >= 18
    assert all(s["font"]["size"] >= 18 for s in spec["layout"]["sliders"])
    assert "geo_dk_chart" not in chart_specs(at)  # one step at a time: the d_k chart is step 2
    at.button(key="step_next").click().run()
    assert chart_specs(at)["geo_dk_chart"]["layout"]["font"]["size"] >= 18
    assert not at.sidebar.number_input and not at.sidebar.text_area  # uses=(): none drawn


def test_the_keys_stay_after_a_visit_to_another_page():
    at = run("app.py")
    at.switch_page(GEO)
    at.run()
    at = edit(at, edited_rows={"1": {"key y": 2.0}})
    at.switch_page(STEP)
    at.run()
    at.switch_page(GEO)
    at.run()
    assert not at.exception
    keys = np.array(DEFAULT_KEYS)
    keys[1, 1] = 2
    assert_core_weights(chart_specs(at)["geometry"], keys)
    assert at.query_params["geo_keys"] == "2,0;0,2;-2.6,1.5;0,-1.5"
