"""Inside a chat model in a browser: generate three tokens one at a time, then open a head."""

import numpy as np
import pytest

from tools.browser import chart_data, error_count, wait_for_app, wait_for_chart

pytestmark = pytest.mark.browser

PROMPT = "The capital of France is"


def bar_heights(page, key):
    return page.locator(f".st-key-{key} .js-plotly-plot").evaluate(
        "gd => Array.from(gd._fullData[0].y, Number)"
    )


def choose(page, key, option):
    """Pick ``option`` (its text) in the select box ``key`` (a combo box: type, then click)."""
    box = page.locator(f".st-key-{key} input[role=combobox]")
    box.click()
    box.fill(option.split(" ")[0])
    page.get_by_role("option", name=option, exact=True).click()


def test_generate_three_tokens_then_open_a_head(page, server, causal_lm):
    page.goto(f"{server}/Inside_a_chat_model")
    wait_for_app(page, "chat_a", timeout=300_000)  # a fresh server loads the model first
    run = causal_lm.run(PROMPT)
    generation = causal_lm.generate(run, 3)
    button = page.get_by_role("button", name="Generate one more")
    for k in range(1, 4):  # each click adds one token: its row of A has one more key
        button.click()
        wait_for_chart(page, "chat_step_row", "gd._fullData[0].y.length === arg", run.n + k)
    step = generation.steps[-1]
    np.testing.assert_allclose(bar_heights(page, "chat_step_row"), step.attention[0, 0], atol=1e-5)
    shown = page.locator("[data-testid=stMain] [data-testid=stCode]").inner_text()
    assert shown.strip() == generation.text.strip()
    choose(page, "chat_layer", "2")
    wait_for_run_of(page)
    choose(page, "chat_head", "5 (reads key/value head 1)")
    expected = run.attention[2, 5]
    wait_for_chart(
        page, "chat_a", "Math.abs(gd._fullData[0].z[1][0] - arg) < 1e-5", float(expected[1, 0])
    )
    z = np.array(chart_data(page, "chat_a")["z"], dtype=float)
    causal = np.tri(run.n, dtype=bool)
    np.testing.assert_allclose(z[causal], expected[causal], atol=1e-5)
    assert np.isnan(z[~causal]).all()
    assert error_count(page) == 0


def wait_for_run_of(page):
    from tools.browser import wait_for_run

    page.wait_for_timeout(300)  # the rerun the choice caused has started
    wait_for_run(page)
