"""Shared test helpers: read Plotly figures back from AppTest, find the repo's pages."""

import base64
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))
ALL_SCRIPTS = ["app.py", *PAGES]


def decode(value):
    """A Plotly JSON array (a list, or {"dtype", "bdata", "shape"} typed buffer) as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            shape = [int(s) for s in str(value["shape"]).split(",")]
            arr = arr.reshape(shape)
        return arr
    return np.array(value, dtype=object if value and isinstance(value[0], str) else None)


def chart_specs(at):
    """{chart key: Plotly spec dict} for every st.plotly_chart drawn by an AppTest run."""
    specs = {}
    for el in at.get("plotly_chart"):
        key = el.proto.id.rsplit("-", 1)[-1]
        specs[key] = json.loads(el.proto.spec)
    return specs


def heatmap_z(spec):
    """The heatmap matrix of a figure spec as float (None -> nan)."""
    z = spec["data"][0]["z"]
    if isinstance(z, dict):
        return decode(z).astype(float)
    return np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)


@pytest.fixture
def root():
    return ROOT


def assert_drawn(z, M, err_msg=""):
    """The chart shows exactly M as sent to the browser: float32, masked (-inf) cells as NaN,
    and a matrix over MAX_DRAWN rows or columns as its block means (tested in test_charts)."""
    from attnviz.charts.matrix import block_mean, blocks

    M = np.asarray(M, dtype=float)
    if np.shape(z) != M.shape:
        M = block_mean(M, blocks(M.shape[0]), blocks(M.shape[1]))
    big = np.finfo(np.float32).max
    expected = np.where(np.isneginf(M), np.nan, np.clip(M, -big, big)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(z, dtype=np.float32), expected, err_msg=err_msg)
