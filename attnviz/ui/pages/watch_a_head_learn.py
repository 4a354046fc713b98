"""The watch-a-head-learn page's controls and runs: the run's choices (kept in the URL) and
training with a progress bar and a live loss curve. Its views (the random heads, the loss, every
head at every checkpoint, scaling on and off, generation) are
``attnviz.ui.pages.watch_a_head_learn_views``; every number in their prose is read from the run
(``attnviz.tiny_gpt.report``).

Trained runs are kept per server in the server's caches (``attnviz.serve.watch_a_head_learn``,
bounded by ``limits.CACHE_GPT_RUNS``), keyed on the small, hashable (RunChoice, scale), never
on arrays, so a class that opens the same link finds the run trained. The training runs in the
script's thread of the first session that asks (its page draws the progress); a second
session asking for the same run meanwhile waits for it instead of training it again.

Widget keys start with ``gpt_``; the URL parameters are ``attnviz.links.tiny_gpt.QUERY_NAMES``.
"""

import time
from dataclasses import replace

import streamlit as st

from attnviz.charts.training import loss_chart
from attnviz.checks import AttentionInputError
from attnviz.limits import (
    GPT_D_MODELS,
    MAX_GPT_STEPS,
    MAX_GPT_TEXT_CHARS,
    MAX_GPT_TRAIN_SECONDS,
    MIN_GPT_STEPS,
)
from attnviz.links.tiny_gpt import (
    QUERY_NAMES,
    TASK_DEFAULTS,
    RunChoice,
    choice_from_query,
)
from attnviz.serve.gate import gated
from attnviz.serve.watch_a_head_learn import finished_run, gpt_run, training_refusal
from attnviz.tiny_gpt import train
from attnviz.tiny_gpt.config import MAX_HEADS_PER_LAYER, MAX_LAYERS
from attnviz.tiny_gpt.tasks import NURSERY_RHYME, TASKS
from attnviz.tiny_gpt.training import BATCH_SIZE, TrainingTooSlowError
from attnviz.ui.charts import CHART_CONFIG, draw
from attnviz.ui.sidebar import url_query, write_page_params
from attnviz.ui.text import md_escape

PAGE_PARAMS = QUERY_NAMES
BACKSTOP = 3  # a run measured past 3 x MAX_GPT_TRAIN_SECONDS of CPU stops all the same
CHOICE_KEY = "gpt.choice"  # the RunChoice in force, kept across pages
URL_KEY = "gpt.url"  # (RunChoice read from the URL, its warnings)
LIVE_EVERY = 0.25  # seconds between two updates of the progress bar while training
CHART_EVERY = 1.0  # seconds between two updates of the live loss curve (each costs ~0.05 s)
WIDGETS = {  # RunChoice field -> widget key
    "task": "gpt_task",
    "n_layers": "gpt_layers",
    "n_heads": "gpt_heads",
    "d_model": "gpt_dmodel",
    "mlp": "gpt_mlp",
    "steps": "gpt_steps",
}
TEXT_KEY = "gpt_text"
SCALED, UNSCALED = "with scaling", "without scaling"
# One click to where scaling visibly matters: one head, so d_k = d_model = 48 (the defaults'
# two heads of d_model 24 have d_k = 12, where the two runs barely differ); sort trains in a
# few seconds. AUTOTRAIN holds the RunChoice to train with and without scaling.
SCALING_PRESET = dict(task="sort", n_layers=1, n_heads=1, d_model=48, mlp=False, steps=400)
PRESET_D_K = SCALING_PRESET["d_model"] // SCALING_PRESET["n_heads"]
AUTOTRAIN = "gpt.autotrain"


# Choices ---------------------------------------------------------------------------------------


def _set_task_defaults():
    """A new task: its own default sizes and steps (a callback, before the widgets are drawn)."""
    state = st.session_state
    for field, value in TASK_DEFAULTS[state[WIDGETS["task"]]].items():
        state[WIDGETS[field]] = value


def choices(seed, draw=True):
    """Draw the task and size widgets; return the RunChoice they hold (with the sidebar's seed).

    A new session starts from the URL (bad values clamped, with a warning); the widgets keep
    the choice when the user visits another page and comes back. The URL follows the widgets.
    ``draw`` False (a projector's step that only shows the trained model): no widgets, the
    choice kept from the last run that drew them (they take it back when drawn again).
    """
    state = st.session_state
    if URL_KEY not in state:
        url_choice, warnings = choice_from_query(url_query(), seed)
        state[URL_KEY] = (url_choice, warnings)
        state[CHOICE_KEY] = url_choice
    kept = state[CHOICE_KEY]
    for field, key in WIDGETS.items():
        if key not in state:  # a new session, or back from another page
            state[key] = getattr(kept, field)
    if TEXT_KEY not in state:
        state[TEXT_KEY] = kept.text or NURSERY_RHYME
    if not draw:
        choice = replace(kept, seed=seed)
        state[CHOICE_KEY] = choice
        _sync_url(choice)
        return choice

    st.selectbox(
        "Task",
        list(TASKS),
        format_func=lambda name: TASKS[name].title,
        key=WIDGETS["task"],
        on_change=_set_task_defaults,
        help="Each task comes with default sizes that train in a few seconds.",
    )
    c1, c2, c3, c4, c5 = st.columns([1, 1.9, 1.6, 0.8, 1.2])
    c1.radio("Layers", range(1, MAX_LAYERS + 1), key=WIDGETS["n_layers"], horizontal=True)
    c2.radio(
        "Heads per layer",
        range(1, MAX_HEADS_PER_LAYER + 1),
        key=WIDGETS["n_heads"],
        horizontal=True,
    )
    c3.select_slider(
        "d_model",
        GPT_D_MODELS,
        key=WIDGETS["d_model"],
        help="The width of the model; each head gets d_k = d_model / heads columns.",
    )
    c4.toggle("MLP", key=WIDGETS["mlp"], help="A feed-forward block after each attention layer.")
    c5.number_input(
        "Steps",
        MIN_GPT_STEPS,
        MAX_GPT_STEPS,
        step=50,
        key=WIDGETS["steps"],
        help=f"Adam updates, each on {BATCH_SIZE} random sequences. {MIN_GPT_STEPS} to "
        f"{MAX_GPT_STEPS}; a run may take at most {MAX_GPT_TRAIN_SECONDS} s of computing.",
    )
    task = state[WIDGETS["task"]]
    text = None
    if task == "text":
        text = st.text_area(
            "Training text (paste your own)",
            key=TEXT_KEY,
            max_chars=MAX_GPT_TEXT_CHARS,
            height=120,
            help="Default: Jane Taylor's “The Star” (1806), public domain.",
        )
    choice = RunChoice(
        seed=seed,
        text=None if text == NURSERY_RHYME else text,  # the default stays out of the link
        **{field: state[key] for field, key in WIDGETS.items()},
    )
    try:
        choice.make_task()
    except AttentionInputError as exc:
        st.error(f"The training text cannot be used: {md_escape(exc)}", icon="🚫")
        st.stop()
    state[CHOICE_KEY] = choice
    _sync_url(choice)
    url_choice, warnings = state[URL_KEY]
    if warnings and replace(choice, seed=url_choice.seed) == url_choice:
        for warning in warnings:
            st.warning(f"Link: {warning}", icon="⚠️")
    return choice


def _sync_url(choice):
    write_page_params(PAGE_PARAMS, choice.to_query())


def task_explanation(choice):
    """The task in a few lines, and its tokens."""
    task = choice.make_task()
    st.markdown(task.explanation)
    tokens = " ".join(md_escape(task.label(i)) for i in range(len(task.vocab)))
    st.caption(
        f"{len(task.vocab)} tokens: {tokens}. The model reads up to {task.context_length} at "
        f"once. Model: {choice.n_layers} layer{'s' * (choice.n_layers > 1)} of "
        f"{choice.n_heads} head{'s' * (choice.n_heads > 1)}, d_model = {choice.d_model}, "
        f"d_k = {choice.d_model // choice.n_heads}, MLP {'on' if choice.mlp else 'off'}, "
        f"seed {choice.seed} (the sidebar's)."
    )


# Training --------------------------------------------------------------------------------------


def _train_with_progress(choice, scale, area):
    """Train ``choice`` with a progress bar and a live loss curve in ``area``; the TrainRun."""
    name = SCALED if scale else UNSCALED
    task, steps = choice.make_task(), choice.steps
    with area.container():
        bar = st.progress(0.0, text=f"Training {name}: step 0 of {steps}")
        live = st.empty()
    updates = {"bar": 0.0, "chart": 0.0, "n": 0}

    def on_step(step, losses):
        now, last = time.perf_counter(), step == steps
        if last or now - updates["bar"] >= LIVE_EVERY:
            updates["bar"] = now
            bar.progress(
                step / steps, text=f"Training {name}: step {step} of {steps}, loss {losses[-1]:.3f}"
            )
        if not last and now - updates["chart"] >= CHART_EVERY:  # the last one is cleared
            updates["chart"], updates["n"] = now, updates["n"] + 1
            fig = loss_chart({name: losses}, steps=steps, target=task.target_loss)
            key = f"gpt_live_{int(scale)}_{updates['n']}"
            with live.container():  # readable, in the palette, with its text, as every chart
                draw(fig, key, config=CHART_CONFIG)

    try:
        return train(  # the limit again, measured: a backstop should the estimate be far off
            choice.config(scale),
            task,
            steps,
            callback=on_step,
            time_limit=BACKSTOP * MAX_GPT_TRAIN_SECONDS,
        )
    except TrainingTooSlowError as exc:
        area.empty()
        st.error(f"Training refused: {exc}", icon="⏱️")
        st.stop()
    finally:
        area.empty()


def _refuse(message):
    st.error(f"Training refused: {message}", icon="⏱️")
    st.stop()


def _train_in_turn(choice, scale, area):
    """Train ``choice`` once a heavy slot is free (``attnviz.serve.gate``: one training or other
    heavy computation per core; the rest wait their turn with a progress bar), unless it is
    refused before it starts (``serve.watch_a_head_learn.training_refusal``)."""
    refusal, seconds = training_refusal(choice, scale)
    if refusal is not None:
        _refuse(refusal)
    return gated(
        lambda: _train_with_progress(choice, scale, area), "a tiny GPT's training", cost=seconds
    )


def trained_run(choice, scale, area):
    """The run of ``choice``, trained now (in ``area``) unless this server has it already, or
    is training it for another visitor (then this one waits for that run)."""
    return gpt_run(
        choice,
        scale,
        train=lambda: _train_in_turn(choice, scale, area),
        on_wait=lambda: st.spinner("Another visitor is training this same model: waiting for it…"),
    )


def _scaling_preset(seed):
    """The preset's callback: its sizes in the widgets, and both runs to train."""
    state = st.session_state
    for field, value in SCALING_PRESET.items():
        state[WIDGETS[field]] = value
    state[AUTOTRAIN] = RunChoice(seed=seed, **SCALING_PRESET)


def autotrain(choice):
    """The preset asked for ``choice`` to be trained with and without scaling."""
    return st.session_state.get(AUTOTRAIN) == choice


def train_button(choice):
    """The Train button, and the preset where scaling matters; returns the trained run (with
    scaling), or None if there is none yet. The button reads "Trained ✓" as soon as the run
    is done (the page is drawn again with it)."""
    run = finished_run(choice)
    left, right = st.columns([1, 2], vertical_alignment="center")
    pressed = left.button(
        "Train" if run is None else "Trained ✓ (kept for this link)",
        type="primary",
        key="gpt_train",
        disabled=run is not None,
    )
    right.button(
        f"⚖️ Where scaling matters: sort, 1 head, d_k = {PRESET_D_K}, with and without scaling",
        key="gpt_scaling_preset",
        on_click=_scaling_preset,
        args=(choice.seed,),
        help="Sets the task and sizes, then trains the model twice: with and without √d_k.",
    )
    area = st.empty()
    if run is None and (pressed or autotrain(choice)):
        trained_run(choice, True, area)
        st.rerun()  # drawn again from the top: the button now says "Trained ✓"
    return run
