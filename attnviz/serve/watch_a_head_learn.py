"""Watch a head learn's server side: the tiny GPT's trained runs and their reports, kept per
(RunChoice, scale) for every visitor (bounded by ``limits.CACHE_GPT_RUNS``), and the random
heads before training, finished once. No Streamlit: the page trains a run (with its progress
bar, through the heavy gate) when ``gpt_run`` misses.
"""

import numpy as np

from attnviz.charts.finish import finished
from attnviz.charts.head_grid import head_grid
from attnviz.charts.style import PRESENT_CHART_HEIGHT_PX
from attnviz.limits import (
    CACHE_GPT_RUNS,
    CACHE_GRID_FIGURES,
    MAX_GPT_QUEUE_SECONDS,
    MAX_GPT_TRAIN_SECONDS,
)
from attnviz.serve.gate import HEAVY
from attnviz.serve.store import MB, kept, object_bytes
from attnviz.tiny_gpt import forward, init_params
from attnviz.tiny_gpt.report import checkpoint_report
from attnviz.tiny_gpt.training import TrainingTooSlowError, step_seconds

RUN_BYTES = 13 * MB  # one run at the largest sizes while it trains: its checkpoints, Adam's state


@kept(*CACHE_GPT_RUNS, estimate=lambda choice, scale: RUN_BYTES)
def gpt_run(choice, scale, *, train):
    """The run of ``choice`` trained with (``scale``) or without scaling, kept for every
    visitor: ``train()`` makes it on a miss (a second visitor meanwhile waits for that run)."""
    return train()


def training_refusal(choice, scale=True):
    """(why training ``choice`` is refused before it starts, or None; its estimated seconds).

    Refused when its steps would take more than MAX_GPT_TRAIN_SECONDS for its sizes (an
    estimate from the sizes, ``step_seconds``: the same link is refused or accepted whatever
    the load), or when the work every visitor has queued in its lane of the heavy queue would
    keep that lane busy more than MAX_GPT_QUEUE_SECONDS with it."""
    per_step = step_seconds(choice.config(scale))
    seconds = choice.steps * per_step
    if seconds > MAX_GPT_TRAIN_SECONDS:
        slow = TrainingTooSlowError(
            seconds, choice.steps, 1 / per_step, MAX_GPT_TRAIN_SECONDS, "for this model's sizes"
        )
        return str(slow), seconds
    queued = HEAVY.queued_cost(HEAVY.lane_for(seconds))  # what runs before it, in its lane
    if queued + seconds > MAX_GPT_QUEUE_SECONDS:
        return (
            f"the server has about {queued:.0f} s of heavy work queued for other visitors, and "
            f"this run would add {seconds:.0f} s (the server takes at most "
            f"{MAX_GPT_QUEUE_SECONDS} s in all). Try again in a minute, or with fewer steps."
        ), seconds
    return None, seconds


def finished_run(choice, scale=True):
    """The trained run of ``choice`` if this server has it, else None (never trains)."""
    return gpt_run.peek(choice, scale)


def scaling_pairs(task):
    """[(choice, run with scaling, run without)] of every choice of ``task`` this server has
    trained both ways, smallest d_k first (then the other sizes)."""
    runs = dict(gpt_run.kept())  # (choice, scale) -> run
    pairs = [
        (choice, run, runs[choice, False])
        for (choice, scale), run in runs.items()
        if scale and choice.task == task and (choice, False) in runs
    ]
    return sorted(pairs, key=lambda p: (p[1].config.d_k, p[0].n_layers, p[0].steps, p[0].seed))


@kept(*CACHE_GPT_RUNS)
def _report(choice, scale, *, run):
    return checkpoint_report(run, choice.seed)


def report_of(choice, run, scale=True):
    """The run's CheckpointReport, computed once per server (``run`` is ``choice``'s)."""
    return _report(choice, scale, run=run)


@kept(*CACHE_GRID_FIGURES, size=object_bytes)
def random_heads_finished(choice, present, palette):
    """Every head's A (L * H panels of T x T) of ``choice``'s random starting weights on its
    example, finished (``charts.finish.finished``) for projector mode ``present`` and ``palette``,
    once for every visitor; it reads nothing else."""
    config, task = choice.config(), choice.make_task()
    ids, _ = task.example(choice.seed)
    A = forward(init_params(config), config, ids[None]).attention[:, 0]  # (L, H, T, T)
    L, H, T, _ = A.shape
    A = np.where(np.tri(T, dtype=bool), A, np.nan).reshape(L * H, T, T)
    labels = [task.label(i) for i in ids]
    titles = [f"layer {layer} head {head}" for layer in range(L) for head in range(H)]
    fig = head_grid(A, labels, labels, titles=titles, columns=H)
    if present and L == 1:  # one row of panels: on the projector's first screen, under the bar
        fig.update_layout(height=min(fig.layout.height, PRESENT_CHART_HEIGHT_PX))
    return finished(fig, present, palette, key="gpt_random_heads")
