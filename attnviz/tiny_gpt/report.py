"""What the page says about a trained run, computed from it: every number in a sentence comes
from the run (no Streamlit, no Plotly).

    checkpoint_report(run, seed)    every head at every checkpoint, for the task's example
    compare_scaling(on, off, ids)   the same run with and without the division by sqrt(d_k)
"""

from dataclasses import dataclass

import numpy as np

from attnviz.tiny_gpt.heads import head_patterns, head_sentence, head_strongest, strongest
from attnviz.tiny_gpt.training import SMOOTHING

SHORT = {"previous": "previous", "same": "own token", "first": "first token"}


@dataclass(frozen=True, eq=False)
class CheckpointReport:
    """Every head's attention for one example sequence at every checkpoint, and its reading.

    Shapes: ids (T,); attention (n_checkpoints, n_layers, n_heads, T, T); steps, eval_losses
    (n_checkpoints,); stats[i] {pattern: (n_layers, n_heads)} at checkpoint i (see
    ``heads.head_patterns``); frame_titles[i] one line per checkpoint ("<br>" between lines);
    head_titles[i] one short title per head, layer by layer.
    """

    ids: np.ndarray
    labels: tuple
    steps: np.ndarray
    eval_losses: np.ndarray
    attention: np.ndarray
    stats: tuple
    frame_titles: tuple
    head_titles: tuple
    answer_name: str | None
    answer_short: str

    def sentences(self, i=-1):
        """One sentence per head at checkpoint i: where it puts most of its weight."""
        stats = self.stats[i]
        n_layers, n_heads = self.attention.shape[1:3]
        return [
            head_sentence(layer, head, *head_strongest(stats, layer, head), self.answer_name)
            for layer in range(n_layers)
            for head in range(n_heads)
        ]


def checkpoint_report(run, seed):
    """The CheckpointReport of ``run`` on its task's example sequence for ``seed``."""
    task = run.task
    ids, _ = task.example(seed)
    attention = run.attention_over_training(ids)  # (n, L, H, T, T)
    answers = None if task.answer_name is None else task.answer_positions(ids[None])[0]
    stats = tuple(head_patterns(A, answers) for A in attention)
    n_layers, n_heads = attention.shape[1:3]
    steps, losses = run.checkpoint_steps, run.eval_losses
    frame_titles, head_titles = [], []
    for i, s in enumerate(stats):
        name, layer, head, value = strongest(s)
        when = f"Step {steps[i]} of {run.steps}" + (" (random weights)" if steps[i] == 0 else "")
        verb = "puts" if steps[i] == 0 else "now puts"
        sentence = head_sentence(layer, head, name, value, task.answer_name).replace(
            "puts", verb, 1
        )
        frame_titles.append(f"{when}: loss {losses[i]:.3f}<br>Strongest pattern: {sentence}")
        titles = []
        for layer in range(n_layers):
            for head in range(n_heads):
                pattern, v = head_strongest(s, layer, head)
                short = task.answer_short if pattern == "answer" else SHORT[pattern]
                titles.append(f"layer {layer} head {head}: {short} {v:.2f}")
        head_titles.append(tuple(titles))
    return CheckpointReport(
        ids=ids,
        labels=tuple(task.label(i) for i in ids),
        steps=steps,
        eval_losses=losses,
        attention=attention,
        stats=stats,
        frame_titles=tuple(frame_titles),
        head_titles=tuple(head_titles),
        answer_name=task.answer_name,
        answer_short=task.answer_short,
    )


def largest_weight(A):
    """Mean over queries 1..T-1 (and every head) of each row's largest weight. A (..., T, T)."""
    return float(np.asarray(A)[..., 1:, :].max(axis=-1).mean())


@dataclass(frozen=True)
class ScaleComparison:
    """The same model, start and batches, trained with and without dividing by sqrt(d_k)."""

    d_k: int
    steps: int
    target: float
    reached: tuple  # (with, without): first step below target (moving mean), or None
    final_loss: tuple  # (with, without): loss on the fixed batch at the last checkpoint
    start_weight: tuple  # (with, without): mean largest weight per row at step 0 (example)


def compare_scaling(scaled, unscaled, ids):
    """A ScaleComparison of two TrainRuns that differ only in ``config.scale``."""
    runs = (scaled, unscaled)
    return ScaleComparison(
        d_k=scaled.config.d_k,
        steps=scaled.steps,
        target=scaled.task.target_loss,
        reached=tuple(r.first_step_below(r.task.target_loss) for r in runs),
        final_loss=tuple(float(r.eval_losses[-1]) for r in runs),
        start_weight=tuple(largest_weight(r.attention(ids, 0)) for r in runs),
    )


def scaling_sentences(c):
    """What the comparison measured, in words: the start, then how fast each run learned."""
    on, off = c.start_weight
    start = (
        f"At the start (the same random weights), the largest weight in a row averages "
        f"{off:.2f} without scaling and {on:.2f} with it: the unscaled scores are "
        f"√{c.d_k} = {np.sqrt(c.d_k):.2f} times larger, so the softmax starts "
        f"{'sharper' if off > on else 'no sharper'}."
    )

    def reached(step):
        return f"at step {step}" if step is not None else f"not within the {c.steps} steps"

    r_on, r_off = c.reached
    if r_on is not None and r_off is not None and abs(r_on - r_off) <= 0.1 * max(r_on, r_off):
        verdict = "The two are within 10% of each other: no clear difference here."
    elif r_on is not None and (r_off is None or r_on < r_off):
        verdict = "With scaling the model learned faster."
    elif r_off is not None:
        verdict = "Here the model without scaling learned faster."
    else:
        verdict = "Neither run reached the target."
    learn = (
        f"The training loss (mean of {SMOOTHING} steps) fell below {c.target:g} {reached(r_on)} "
        f"with scaling and {reached(r_off)} without. {verdict} Final loss on the fixed batch: "
        f"{c.final_loss[0]:.3f} with scaling, {c.final_loss[1]:.3f} without."
    )
    return start, learn
