"""The 'Your own numbers' page in a browser: upload a download, type a matrix."""

import numpy as np
import pytest

import attnviz
from attnviz.files.export import all_steps_npz
from tests.helpers import assert_drawn
from tools.browser import chart_data, error_count, wait_for_app, wait_for_rows

pytestmark = pytest.mark.browser


def test_uploading_a_download_and_typing_a_matrix_on_your_own_numbers(page, server, tmp_path):
    example = attnviz.compute(attnviz.Settings(text="to be or not", d_model=5, d_k=3, d_v=2))
    (tmp_path / "steps.npz").write_bytes(all_steps_npz(example))
    page.goto(f"{server}/Your_own_numbers")
    wait_for_app(page, "A")
    assert len(chart_data(page, "A")["ticks"]) != len(example.labels)  # so the wait means it
    page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(
        tmp_path / "steps.npz"
    )
    page.wait_for_selector("text=Read X, W_Q, W_K and W_V from steps.npz", timeout=60_000)
    wait_for_rows(page, "A", len(example.labels))
    data = chart_data(page, "A")
    assert data["ticks"] == example.labels
    assert_drawn(data["z"], example.result.attention)
    box = page.locator(".st-key-attnviz_own_X textarea")
    box.fill("1 0 0 0 1\n0 1 0 0 1\n<b>x</b>")  # a typo: the box keeps it, an error says where
    box.press("Control+Enter")
    page.wait_for_selector("text=X, row 3, entry 1: '<b>x</b>' is not a number", timeout=60_000)
    assert page.locator("[data-testid=stMain] b").filter(has_text="x").count() == 0
    assert box.input_value() == "1 0 0 0 1\n0 1 0 0 1\n<b>x</b>"
    box.fill("1 0 0 0 1\n0 1 0 0 1\n0 0 1 1 0")
    box.press("Control+Enter")
    wait_for_rows(page, "A", 3)
    r = example.result
    X = np.array([[1, 0, 0, 0, 1], [0, 1, 0, 0, 1], [0, 0, 1, 1, 0]], float)
    W = [np.round(np.asarray(M, float), 17) for M in (r.W_Q, r.W_K, r.W_V)]
    assert_drawn(chart_data(page, "A")["z"], attnviz.self_attention(X, *W).attention)
    assert "X=1%2C0%2C0%2C0%2C1%3B0%2C1" in page.url or "X=1,0,0,0,1;0,1" in page.url
    assert error_count(page) == 0
