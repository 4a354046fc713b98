"""The watch-a-head-learn page's views: the heads of the random weights before training, and
after it the loss, every head at every checkpoint, scaling on and off, and generation. Every
number in the prose is read from the run (``attnviz.tiny_gpt.report``); the runs come from
``attnviz.ui.pages.watch_a_head_learn``.
"""

import itertools

import numpy as np
import streamlit as st

from attnviz.charts.training import checkpoint_figure, loss_chart, next_token_chart
from attnviz.checks import AttentionInputError
from attnviz.limits import MAX_GPT_TEXT_CHARS
from attnviz.serve.watch_a_head_learn import (
    finished_run,
    random_heads_finished,
    scaling_pairs,
)
from attnviz.tiny_gpt import generate, next_token_probs
from attnviz.tiny_gpt.report import compare_scaling, scaling_sentences
from attnviz.tiny_gpt.training import EVAL_SIZE, SMOOTHING
from attnviz.ui.charts import CHART_CONFIG, draw, toolbar
from attnviz.ui.pages.watch_a_head_learn import (
    AUTOTRAIN,
    SCALED,
    UNSCALED,
    autotrain,
    trained_run,
)
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present, palette
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape, notice


def random_heads(choice):
    """Before training: the heads of the random starting weights, said to be random."""
    with after_chart("random_heads"):  # on a projector after the heads
        notice(
            "**The weights are random: nothing has been learned yet.** Here, every head's "
            "attention for an example sequence with the random starting weights (seed "
            f"{choice.seed}). Press **Train** to watch these patterns change."
        )
    key = "gpt_random_heads"
    config = dict(CHART_CONFIG, toImageButtonOptions={"filename": f"attnviz-{key}"})
    draw(random_heads_finished(choice, is_present(), palette()), key, config=config)
    st.caption("Rows are queries, columns keys. Blank cells: the causal mask hides later keys.")


# After training --------------------------------------------------------------------------------


def loss_summary(run, report):
    """The loss curve, and what it says in numbers."""
    task = run.task
    draw(
        loss_chart(
            {SCALED: run.losses},
            steps=run.steps,
            target=task.target_loss,
            checkpoints={SCALED: (run.checkpoint_steps, run.eval_losses)},
        ),
        "gpt_loss",
        config=toolbar("gpt_loss"),
    )
    V = len(task.vocab)
    reached = run.first_step_below(task.target_loss)
    when = (
        f"first fell below the target {task.target_loss:g} at step {reached}"
        if reached is not None
        else f"did not fall below the target {task.target_loss:g}: try more steps or another seed"
    )
    st.markdown(
        f"{run.steps} steps of {run.batch_size} sequences took {run.seconds:.1f} s. On a fixed "
        f"batch of {EVAL_SIZE} sequences (the circles) the loss went from "
        f"**{run.eval_losses[0]:.3f}** nats with the random weights (a uniform guess over the "
        f"{V} tokens scores ln {V} = {np.log(V):.3f}) to **{run.eval_losses[-1]:.3f}**. The "
        f"training loss (mean of {SMOOTHING} steps) {when}."
    )


def heads_over_training(report, run):
    """The checkpoint slider: every head at every checkpoint, in the browser."""
    n_heads = run.config.n_heads
    fig = checkpoint_figure(
        report.attention,
        report.labels,
        report.steps,
        report.frame_titles,
        report.head_titles,
        n_heads=n_heads,
        one_row=is_present(),  # a projector: the heads and the slider on its first screen
    )
    draw(
        fig,
        "gpt_checkpoints",
        title="Every head at every checkpoint",
        config=dict(CHART_CONFIG, toImageButtonOptions={"filename": "attnviz-gpt-heads"}),
    )
    st.caption(
        f"{len(report.steps)} checkpoints, from step 0 (random weights) to step {run.steps}. "
        "The slider moves in your browser: nothing is recomputed. Each panel's title names the "
        "place that gets the largest share of that head's weight (the previous token, its own "
        "token, the first token"
        + (f", or {md_escape(report.answer_name)}" if report.answer_name else "")
        + f"), averaged over the queries 1 to {len(report.ids) - 1} of this sequence (query 0 "
        "can only see itself). Blank cells: the causal mask hides later keys."
    )
    lines = "\n".join(f"- {md_escape(s)}" for s in report.sentences(-1))
    first = "\n".join(f"- {md_escape(s)}" for s in report.sentences(0))
    notice(
        f"After training (step {run.steps}), averaged over the queries of this sequence:\n"
        f"{lines}\n\nWith the random weights (step 0):\n{first}"
    )


def scaling_comparison(choice, run, report):
    """The same run without dividing by √d_k: a button to train it, then both measured."""
    area = st.empty()
    unscaled = finished_run(choice, scale=False)
    if unscaled is None:
        offer = st.empty()  # the offer goes once the run is trained
        with offer.container():
            st.markdown(
                "Train the same model again with **S' = S** instead of S / √d_k: the same "
                "random start, the same batches, only the division left out."
            )
            pressed = st.button("Train without scaling", key="gpt_train_unscaled")
        if not (pressed or autotrain(choice)):
            return
        st.session_state.pop(AUTOTRAIN, None)
        unscaled = trained_run(choice, False, area)
        offer.empty()
    draw(
        loss_chart(
            {SCALED: run.losses, UNSCALED: unscaled.losses},
            steps=run.steps,
            target=run.task.target_loss,
            checkpoints={
                SCALED: (run.checkpoint_steps, run.eval_losses),
                UNSCALED: (unscaled.checkpoint_steps, unscaled.eval_losses),
            },
            title="Training loss with and without scaling",
        ),
        "gpt_loss_scaling",
        config=toolbar("gpt_loss_scaling"),
    )
    start, learn = scaling_sentences(compare_scaling(run, unscaled, report.ids))
    notice(f"{start} {learn}")
    scaling_by_d_k(choice.task)


def scaling_by_d_k(task):
    """Every run of ``task`` this server has trained with and without scaling, by d_k: the
    final losses and their gap, and what the gap did as d_k grew (computed, not assumed)."""
    pairs = scaling_pairs(task)
    rows = [
        {
            "d_k": on.config.d_k,
            "layers × heads": f"{c.n_layers} × {c.n_heads}",
            "steps": c.steps,
            "seed": c.seed,
            "final loss, scaled": f"{on.eval_losses[-1]:.3f}",
            "final loss, unscaled": f"{off.eval_losses[-1]:.3f}",
            "gap": f"{off.eval_losses[-1] - on.eval_losses[-1]:.3f}",
        }
        for c, on, off in pairs
    ]
    st.markdown("**Every run of this task trained both ways on this server, by d_k:**")
    data_table(rows, hide_index=True)
    gaps = {}
    for _, on, off in pairs:  # the largest gap measured at each d_k
        gap, d_k = float(off.eval_losses[-1] - on.eval_losses[-1]), on.config.d_k
        gaps[d_k] = max(gaps.get(d_k, -np.inf), gap)
    if len(gaps) < 2:
        st.markdown(
            "One d_k so far. Train this task at another d_k both ways (d_k = d_model / heads: "
            "more heads or a smaller d_model give a smaller one) and the gaps are compared here."
        )
        return
    d_ks = sorted(gaps)
    grew = all(gaps[a] < gaps[b] for a, b in itertools.pairwise(d_ks))
    st.markdown(
        "Largest gap (unscaled minus scaled final loss) at each d_k: "
        + ", ".join(f"d_k = {d}: {gaps[d]:.3f}" for d in d_ks)
        + (
            ". In these runs the gap grows with d_k."
            if grew
            else ". In these runs the gap does not grow steadily with d_k: the runs differ in "
            "more than d_k, and one run per setting is one draw."
        )
    )


# Generation ------------------------------------------------------------------------------------


def _prompt_key(choice):
    return f"gpt_prompt_{choice.task}"


def _sample(choice, n, temperature, top_k):
    """Append ``n`` sampled tokens to the prompt (a button's callback). It gets the choice and
    finds the trained run on the server: a callback's arguments stay in the session."""
    state = st.session_state
    run = finished_run(choice)
    if run is None:  # dropped from the server since the page was drawn: the rerun says so
        return
    task = run.task
    try:
        ids = task.encode(state[_prompt_key(choice)])
    except AttentionInputError:
        return  # the page says what is wrong with the prompt
    if len(ids) == 0:
        return
    end = task.answer_end(ids)
    if end is not None:  # stop at the end of the answer: nothing after it was trained
        n = min(n, end - len(ids))
        if n <= 0:
            return
    draws = state.get("gpt.draws", 0)  # each press draws anew, reproducibly within a session
    state["gpt.draws"] = draws + 1
    out = generate(run.params, run.config, ids, n, temperature, top_k, seed=[choice.seed, draws])
    text = task.decode(out)  # the prompt as the task writes it, then the new tokens
    if len(text) > MAX_GPT_TEXT_CHARS:
        state["gpt.sampled"] = None
        return
    state[_prompt_key(choice)] = text
    state["gpt.sampled"] = (int(out[-1]), n)


def _reset_prompt(choice):
    st.session_state[_prompt_key(choice)] = choice.make_task().default_prompt(choice.seed)


def generation(choice, run):
    """The prompt, temperature and top-k, the next token's probabilities, and sampling."""
    task, state = run.task, st.session_state
    V = len(task.vocab)
    key = _prompt_key(choice)
    if key not in state:
        state[key] = task.default_prompt(choice.seed)
    what = "characters" if task.name == "text" else "tokens separated by spaces"
    controls = after_chart("generate_controls")  # on a projector after the probabilities
    prompt = controls.text_input(f"Prompt ({what})", key=key, max_chars=MAX_GPT_TEXT_CHARS)
    c1, c2 = controls.columns(2)
    temperature = c1.slider(
        "Temperature",
        0.0,
        2.0,
        1.0,
        0.05,
        key="gpt_temperature",
        help="p = softmax(logits / temperature). 0: always the most probable token.",
    )
    top_k = c2.slider(
        "Top-k",
        1,
        V,
        V,
        key=f"gpt_top_k_{V}",  # one per vocabulary size: a task with fewer tokens starts at all
        help=f"Keep the k most probable tokens (of {V}) and renormalise; {V} keeps them all.",
    )
    try:
        ids = task.encode(prompt)
    except AttentionInputError as exc:
        st.warning(f"The prompt: {md_escape(exc)}", icon="✍️")
        return
    if len(ids) == 0:
        st.warning("The prompt is empty: type at least one token for the model to continue.")
        return
    probs = next_token_probs(run.params, run.config, ids, temperature, top_k)
    labels = [task.label(i) for i in range(V)]
    best = int(np.argmax(probs))
    unit = "characters" if task.name == "text" else "tokens"
    read = min(len(ids), run.config.context_length)
    draw(
        next_token_chart(probs, labels, title=f"The next token, after {read} {unit}"),
        "gpt_next",
        config=toolbar("gpt_next"),
    )
    cut = (
        f" The prompt has {len(ids)} {unit}; the model reads the last {read}."
        if len(ids) > read
        else ""
    )
    st.markdown(
        f"Most probable next token: **{md_escape(labels[best])}** (p = {probs[best]:.3f}), with "
        f"temperature {temperature:g} and top-k {top_k}.{cut}"
    )
    end = task.answer_end(ids)
    done = end is not None and len(ids) >= end
    if done:
        st.markdown(
            f"**The answer is complete:** {task.k} digits after the bar, as in every training "
            "sequence. The model was never trained on what would come after"
            + (
                f" (the prompt has {len(ids) - end} token{'s' * (len(ids) - end > 1)} past "
                "the end: outside what was trained)"
                if len(ids) > end
                else ""
            )
            + ", so sampling stops here. Reset the prompt for another example."
        )
    if task.name == "previous" and len(ids) >= 2:
        a, b = (md_escape(task.label(int(i))) for i in ids[-2:])
        st.markdown(
            "Once the task is learned, the output alternates: the model says the token "
            f"*before* the current one, so after “{a} {b}” it says {a}; then, after “{b} {a}”, "
            f"it says {b}, and so on: each token it writes makes the one before it the next "
            "answer."
        )
    b1, b2, b3 = st.columns(3)
    for col, n in ((b1, 1), (b2, 10)):
        col.button(
            "Sample the next token" if n == 1 else f"Sample {n} tokens",
            key=f"gpt_sample_{n}",
            on_click=_sample,
            args=(choice, n, temperature, top_k),
            disabled=done,
        )
    b3.button("Reset the prompt", key="gpt_reset", on_click=_reset_prompt, args=(choice,))
    if "gpt.sampled" in state:
        sampled = state.pop("gpt.sampled")
        if sampled is None:
            st.caption(f"The prompt is at its limit of {MAX_GPT_TEXT_CHARS} characters.")
        else:
            token, n = sampled
            st.caption(
                f"Added {n} token{'s' * (n > 1)} to the prompt, each drawn from the model's "
                f"probabilities (with this temperature and top-k) for what came before it; the "
                f"last was **{md_escape(labels[token])}**."
            )
