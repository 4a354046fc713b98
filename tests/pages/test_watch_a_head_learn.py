"""The watch-a-head-learn page through AppTest: random weights said to be random, Train (the
loss curve, the checkpoint slider's frames), a link that finds its run already trained, the
run without scaling, generation, a run over the time limit, and links with bad values.

Every number drawn is compared with ``attnviz.tiny_gpt.train`` run here: training is
deterministic for a seed, so the page's run and this one are the same.
"""

import threading
from contextlib import contextmanager

import numpy as np
import pytest

from attnviz.links.tiny_gpt import RunChoice, default_choice
from attnviz.serve import watch_a_head_learn as serve
from attnviz.tiny_gpt import forward, init_params, next_token_logits, train
from attnviz.ui.pages import watch_a_head_learn as page
from tests.helpers import chart_specs, decode, forget_kept, run

PAGE = "app_pages/Watch_a_head_learn.py"
STEPS = 40  # a short run: the page's numbers, not what the model learns, are tested here
SHORT = {"gpt_steps": str(STEPS)}


@pytest.fixture(autouse=True)
def fresh_cache():
    """No run trained yet on this "server" (AppTest runs in this process), and none after."""
    forget_kept()
    yield
    forget_kept()


def texts(at, kind="markdown"):
    return "\n".join(el.value for el in at.get(kind))


def click(at, key):
    at.button(key=key).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def heatmaps(spec):
    return [decode(t["z"]).astype(float) for t in spec["data"] if t["type"] == "heatmap"]


def expected_run(choice):
    return train(choice.config(), choice.make_task(), choice.steps)


def test_the_page_opens_on_random_weights_and_says_so():
    at = run(PAGE)
    assert not at.error and not at.warning
    assert "The weights are random: nothing has been learned yet." in texts(at, "info")
    choice = default_choice("previous")
    config, task = choice.config(), choice.make_task()
    ids, _ = task.example(0)
    A = forward(init_params(config), config, ids[None]).attention[0, 0]  # (H, T, T)
    drawn = heatmaps(chart_specs(at)["gpt_random_heads"])
    assert len(drawn) == choice.n_heads
    for h in range(choice.n_heads):
        np.testing.assert_allclose(
            drawn[h], np.where(np.tri(len(ids), dtype=bool), A[h], np.nan), rtol=1e-6
        )
    assert at.query_params["gpt_task"] == "previous" and at.query_params["gpt_steps"] == "200"
    assert at.query_params["tokens"] == "the cat sat on the mat"  # the sidebar's stay


def test_projector_mode_shows_only_the_seed_in_the_sidebar():
    at = run(PAGE, {"present": "on"})
    shown = {
        w.key
        for kind in ("text_area", "number_input", "toggle", "selectbox", "radio")
        for w in at.sidebar.get(kind)
    }
    assert shown == {"attnviz_present", "attnviz_palette", "attnviz_seed"}


def test_train_draws_the_loss_the_checkpoint_slider_scaling_and_generation():
    at = click(run(PAGE, SHORT), "gpt_train")
    assert at.button(key="gpt_train").label.startswith("Trained ✓")  # at once, not a run later
    expected = expected_run(RunChoice(steps=STEPS))
    specs = chart_specs(at)
    loss = specs["gpt_loss"]["data"]
    np.testing.assert_allclose(decode(loss[0]["y"]), expected.losses, rtol=1e-6)
    np.testing.assert_allclose(decode(loss[1]["y"]), expected.eval_losses, rtol=1e-6)
    assert f"to **{expected.eval_losses[-1]:.3f}**" in texts(at)

    fig = specs["gpt_checkpoints"]
    steps = expected.checkpoint_steps
    assert [f["name"] for f in fig["frames"]] == [str(s) for s in steps]
    assert [s["label"] for s in fig["layout"]["sliders"][0]["steps"]] == [str(s) for s in steps]
    assert fig["layout"]["sliders"][0]["active"] == len(steps) - 1
    ids, _ = expected.task.example(0)
    mask = np.tri(len(ids), dtype=bool)
    for i in (0, len(steps) - 1):  # the random start and the end, as the browser gets them
        A = expected.attention(ids, i)[0]  # (H, T, T) of the one layer
        frame = [decode(t["z"]).astype(float) for t in fig["frames"][i]["data"]]
        for h, z in enumerate(frame):
            np.testing.assert_allclose(z, np.where(mask, A[h], np.nan), rtol=1e-6)
        assert f"loss {expected.eval_losses[i]:.3f}" in fig["frames"][i]["layout"]["title"]["text"]
    assert "(random weights)" in fig["frames"][0]["layout"]["title"]["text"]
    assert "now puts" in fig["frames"][-1]["layout"]["title"]["text"]

    at = click(at, "gpt_train_unscaled")
    names = [t["name"] for t in chart_specs(at)["gpt_loss_scaling"]["data"]]
    assert any(n.startswith("with scaling") for n in names)
    assert any(n.startswith("without scaling") for n in names)
    assert "the largest weight in a row averages" in texts(at, "info")

    at.slider(key="gpt_temperature").set_value(0.0)
    at.run()
    prompt = at.text_input(key="gpt_prompt_previous").value
    ids = expected.task.encode(prompt)
    best = int(np.argmax(next_token_logits(expected.params, expected.config, ids)))
    probs = decode(chart_specs(at)["gpt_next"]["data"][0]["y"])
    assert probs.tolist() == [1.0 if i == best else 0.0 for i in range(len(probs))]
    a, b = prompt.split()[-2:]
    assert f"after “{a} {b}” it says {a}; then, after “{b} {a}”, it says {b}" in texts(at)
    at = click(at, "gpt_sample_1")
    assert at.text_input(key="gpt_prompt_previous").value == f"{prompt} {expected.task.vocab[best]}"


def test_the_scaling_preset_trains_both_ways_in_one_click(monkeypatch):
    monkeypatch.setitem(page.SCALING_PRESET, "steps", STEPS)  # short: the page is tested here
    at = click(run(PAGE), "gpt_scaling_preset")
    assert at.selectbox(key="gpt_task").value == "sort" and at.radio(key="gpt_heads").value == 1
    assert at.button(key="gpt_train").label.startswith("Trained ✓")
    names = [t["name"] for t in chart_specs(at)["gpt_loss_scaling"]["data"]]
    assert any(n.startswith("without scaling") for n in names)
    choice = RunChoice(**page.SCALING_PRESET)
    on, off = (train(choice.config(x), choice.make_task(), STEPS) for x in (True, False))
    (table,) = [df.value for df in at.dataframe if "gap" in df.value.columns]
    assert table["d_k"].tolist() == [48]
    assert table["gap"].tolist() == [f"{off.eval_losses[-1] - on.eval_losses[-1]:.3f}"]
    assert "d_k = 48 both ways" in texts(at)


def test_generation_stops_at_the_end_of_the_answer():
    at = click(run(PAGE, {"gpt_task": "reverse", **SHORT}), "gpt_train")
    at.text_input(key="gpt_prompt_reverse").set_value("1 2 3 4 5 | 5 4")
    at.run()
    at = click(at, "gpt_sample_10")  # asks for 10, gets the 3 digits the answer still needs
    tokens = at.text_input(key="gpt_prompt_reverse").value.split()
    assert len(tokens) == 11 and " ".join(tokens[:8]) == "1 2 3 4 5 | 5 4"
    assert "**The answer is complete:** 5 digits after the bar" in texts(at)
    assert at.button(key="gpt_sample_1").disabled and at.button(key="gpt_sample_10").disabled


def test_a_class_opening_the_same_link_finds_the_run_trained(monkeypatch):
    calls = []
    real_train = page.train
    monkeypatch.setattr(page, "train", lambda *a, **k: calls.append(a) or real_train(*a, **k))
    click(run(PAGE, SHORT), "gpt_train")
    student = run(PAGE, SHORT)  # another session, the same link: no Train pressed
    assert "gpt_checkpoints" in chart_specs(student) and len(calls) == 1
    assert student.button(key="gpt_train").disabled
    other = run(PAGE, {**SHORT, "seed": "1"})  # another seed is another run
    assert "gpt_checkpoints" not in chart_specs(other) and len(calls) == 1


def test_a_run_over_the_time_limit_is_refused_with_how_to_shrink_it(monkeypatch):
    monkeypatch.setattr(serve, "MAX_GPT_TRAIN_SECONDS", 1e-4)
    at = click(run(PAGE), "gpt_train")
    refused = at.error[0].value
    assert "Training refused" in refused and "steps or fewer" in refused
    assert "for this model's sizes" in refused  # from its sizes, never from a busy clock
    assert "gpt_checkpoints" not in chart_specs(at)


@contextmanager
def heavy_job_running(visitor, **admit):
    """A job of ``visitor`` admitted to the heavy gate (serve/gate.HEAVY.admit's ``admit``) in
    another thread, running while the block runs, finished when it leaves."""
    from attnviz.serve.gate import HEAVY

    held, release = threading.Event(), threading.Event()

    def job():
        with HEAVY.admit(visitor, **admit):
            held.set()
            release.wait(60)

    worker = threading.Thread(target=job)
    worker.start()
    held.wait(60)
    try:
        yield
    finally:
        release.set()
        worker.join(60)


def test_the_training_budget_counts_every_visitors_trainings(monkeypatch):
    """Work queued for other visitors in the run's lane counts: past MAX_GPT_QUEUE_SECONDS a
    run waits for none of it and is refused, saying why; the same link trains once the queue
    is short."""
    from attnviz.limits import SMALL_HEAVY_SECONDS

    # the budget of the short runs' lane, shrunk so that one other visitor's job fills it
    budget = "attnviz.serve.watch_a_head_learn.MAX_GPT_QUEUE_SECONDS"
    monkeypatch.setattr(budget, SMALL_HEAVY_SECONDS)
    with heavy_job_running("another visitor", cost=SMALL_HEAVY_SECONDS):  # in the same lane
        at = click(run(PAGE, SHORT), "gpt_train")
        refused = at.error[0].value
        assert "queued for other visitors" in refused and "gpt_checkpoints" not in chart_specs(at)
    at = click(run(PAGE, SHORT), "gpt_train")
    assert "gpt_checkpoints" in chart_specs(at) and not at.error


def test_a_visitor_with_a_training_running_elsewhere_is_told_and_not_queued(monkeypatch):
    """One heavy job per visitor (serve/fair_queue.py): a second tab's training is refused at
    once with the reason, and trains once the first has finished."""
    monkeypatch.setattr("attnviz.ui.visitor.visitor_key", lambda: "one visitor")
    with heavy_job_running("one visitor", cost=1.0, what="a tiny GPT's training"):  # other tab
        at = click(run(PAGE, SHORT), "gpt_train")
        said = " ".join(w.value for w in at.warning)
        assert "Not started" in said and "already have a tiny GPT's training" in said
        assert "gpt_checkpoints" not in chart_specs(at)
    at = click(run(PAGE, SHORT), "gpt_train")
    assert "gpt_checkpoints" in chart_specs(at) and not at.error


def test_bad_link_values_give_warnings_not_a_traceback():
    at = run(PAGE, {"gpt_task": "sort", "gpt_layers": "7", "gpt_dmodel": "abc", "gpt_mlp": "1"})
    warnings = texts(at, "warning")
    assert "`gpt_layers=7` in the link is outside 1 to 2: using 2." in warnings
    assert "`gpt_dmodel=abc` in the link is not one of 12, 24, 36, 48: using 24." in warnings
    assert "`gpt_mlp=1` in the link is not one of on, off: using off." in warnings
    assert at.query_params["gpt_layers"] == "2" and at.query_params["gpt_task"] == "sort"
    at = run(PAGE, {"gpt_task": "text", "gpt_text": "ab"})
    assert "cannot be used" in texts(at, "warning") and not at.error


def test_characters_are_data_not_markup():
    text = "<b>bold</b> & <i>x</i> *stars* `tick` " * 2
    at = run(PAGE, {"gpt_task": "text", "gpt_text": text})
    assert not at.error and not at.warning
    fig = chart_specs(at)["gpt_random_heads"]
    ticks = fig["layout"]["xaxis"]["ticktext"]
    assert "&lt;" in ticks and "&amp;" in ticks and "<" not in ticks
    assert r"\<" in texts(at, "caption") and r"\`" in texts(at, "caption")  # md_escape'd
