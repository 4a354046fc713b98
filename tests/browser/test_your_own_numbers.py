"""The 'Your own numbers' page in a browser: a real file input takes a download of the app's
(typing a matrix, and a typo kept in its box, are wiring: tests/pages/test_your_own_numbers.py)."""

import pytest

import attnviz
from attnviz.files.export import all_steps_npz
from tests.helpers import assert_drawn
from tools.browser import chart_data, error_count, wait_for_app, wait_for_rows

pytestmark = pytest.mark.browser


def test_uploading_a_download_on_your_own_numbers(page, server, tmp_path):
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
    assert error_count(page) == 0
