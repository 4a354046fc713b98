"""Training: Adam on random batches of a task, with the loss and a few dozen checkpoints kept.

``train`` is deterministic for a Config's seed: the starting weights come from ``config.seed``
and the batches from their own stream of the same seed, so two runs that differ only in
``scale`` start from the same weights and see the same batches (a fair comparison).
"""

import time
from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.tiny_gpt.config import init_params
from attnviz.tiny_gpt.model import forward, loss, loss_and_grads

BATCH_SIZE = 32
LEARNING_RATE = 1e-2
N_CHECKPOINTS = 25  # parameter snapshots kept, evenly spaced from step 0 to the last step
EVAL_SIZE = 64  # sequences in the fixed batch each checkpoint is scored on
WARMUP = 50  # steps of linear warm-up of the learning rate
SMOOTHING = 20  # steps in the moving mean that decides when the loss first fell below a target
PROJECT_AFTER = 0.5  # CPU seconds of training after which the whole run's time is projected


# What one training step costs on one core, from the model's sizes (never from the clock, so
# that a link is refused or accepted whatever else the server is doing): a fixed part, a part
# per layer and head, and one per multiply-add of the forward and backward passes. Fitted on
# 32 shapes (1-2 layers, 1-4 heads, d_model 12-48, MLP on/off, two tasks) on the shared 2-core
# machine, 2026-12-01 (thread CPU time of 40 steps each); within about 30 % of each.
STEP_MS = 0.8  # fixed, per step
LAYER_MS = 0.6  # per layer
HEAD_MS = 0.65  # per head of a layer
MLP_MS = 0.9  # per MLP
MS_PER_MFLOP = 0.12  # per million floating-point operations


def step_seconds(config, batch_size=BATCH_SIZE):
    """CPU seconds one Adam step of ``config`` costs on ``batch_size`` sequences (an estimate
    from its sizes alone: the same on a quiet server and on a busy one)."""
    D, T, V, L = config.d_model, config.context_length, config.vocab_size, config.n_layers
    per_token = L * (8 * D * D + 4 * T * D + (4 * config.d_ff * D if config.mlp else 0)) + 2 * D * V
    mflop = 3 * batch_size * T * per_token / 1e6  # the backward pass costs about twice the forward
    ms = STEP_MS + L * (LAYER_MS + HEAD_MS * config.n_heads + MLP_MS * config.mlp)
    return (ms + MS_PER_MFLOP * mflop) / 1000


class TrainingTooSlowError(AttentionInputError):
    """A run that would take longer than its time limit; says how to shrink it."""

    def __init__(
        self, seconds, steps, steps_per_second, limit, how="measured over its first steps"
    ):
        self.seconds, self.steps, self.steps_per_second, self.limit = (
            seconds,
            steps,
            steps_per_second,
            limit,
        )
        fit = int(steps_per_second * limit)
        super().__init__(
            f"{steps} steps would take about {seconds:.0f} s of computing here "
            f"({steps_per_second:.0f} steps per second, {how}); the "
            f"limit is {limit:g} s. Use about "
            f"{fit} steps or fewer, or a smaller model (fewer layers or heads, a smaller d_model, "
            "the MLP off)."
        )


class Adam:
    """Adam (Kingma & Ba, 2015): each weight moves by lr * m_hat / (sqrt(v_hat) + eps).

    m and v are running means of the gradient and of its square (betas b1, b2); the hats undo
    their bias towards 0 in the first steps.
    """

    def __init__(self, params, lr=LEARNING_RATE, betas=(0.9, 0.99), eps=1e-8):
        self.lr, (self.b1, self.b2), self.eps = lr, betas, eps
        self.m = {name: np.zeros_like(p) for name, p in params.items()}
        self.v = {name: np.zeros_like(p) for name, p in params.items()}
        self.t = 0

    def step(self, params, grads):
        """Update ``params`` in place from ``grads`` (same names and shapes)."""
        self.t += 1
        c1, c2 = 1 - self.b1**self.t, 1 - self.b2**self.t
        for name, p in params.items():
            g = grads[name]
            m, v = self.m[name], self.v[name]
            m *= self.b1
            m += (1 - self.b1) * g  # m = b1 m + (1 - b1) g
            v *= self.b2
            v += (1 - self.b2) * g * g  # v = b2 v + (1 - b2) g^2
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def _frozen(params):
    copy = {name: p.copy() for name, p in params.items()}
    for p in copy.values():
        p.flags.writeable = False
    return copy


@dataclass(frozen=True, eq=False)
class TrainRun:
    """A finished run: the loss curve, the checkpoints, and every head's attention at any of them.

    ``losses[s]`` is the loss of step s's batch before its update (``steps`` values);
    ``checkpoint_steps[i]`` how many updates checkpoint i had seen (0 = the random start, the
    last = ``steps``); ``eval_losses[i]`` its loss on a fixed batch of EVAL_SIZE sequences
    drawn once for the run. Arrays and checkpoints are read-only.
    """

    config: object  # Config
    task: object  # Task
    steps: int
    batch_size: int
    learning_rate: float
    losses: np.ndarray
    checkpoint_steps: np.ndarray
    checkpoints: tuple
    eval_losses: np.ndarray
    seconds: float

    def __post_init__(self):
        for a in (self.losses, self.checkpoint_steps, self.eval_losses):
            a.flags.writeable = False

    @property
    def params(self):
        """The trained weights (the last checkpoint)."""
        return self.checkpoints[-1]

    def attention(self, ids, checkpoint=-1):
        """(n_layers, n_heads, T, T) every head's attention for the 1-D sequence ``ids``."""
        trace = forward(self.checkpoints[checkpoint], self.config, np.asarray(ids)[None])
        return trace.attention[:, 0]  # (n_layers, n_heads, T, T)

    def attention_over_training(self, ids):
        """(n_checkpoints, n_layers, n_heads, T, T): ``attention`` at every checkpoint."""
        return np.stack([self.attention(ids, i) for i in range(len(self.checkpoints))])

    def first_step_below(self, loss, window=SMOOTHING):
        """The first step at which the mean training loss of the last ``window`` steps is below
        ``loss``, or None."""
        if len(self.losses) < window:
            return None
        means = np.convolve(self.losses, np.ones(window) / window, mode="valid")
        below = np.flatnonzero(means < loss)
        return int(below[0]) + window if below.size else None


def learning_rate_at(step, steps, peak):
    """The learning rate of step ``step`` (0-based) of ``steps``: a linear warm-up over the first
    WARMUP steps (at most a tenth of the run), then a cosine decay from ``peak`` to peak / 10.

    Small steps while Adam's running means are still settling, big ones while the loss falls
    fast, small ones at the end so the final weights settle instead of jittering.
    """
    warmup = max(1, min(WARMUP, steps // 10))
    progress = step / max(steps - 1, 1)
    decay = 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * progress))
    return peak * min(1.0, (step + 1) / warmup) * decay


def checkpoint_schedule(steps, n_checkpoints=N_CHECKPOINTS):
    """The update counts at which to keep the weights: 0, ..., steps, evenly spaced."""
    return np.unique(np.linspace(0, steps, min(n_checkpoints, steps + 1)).round().astype(int))


def train(
    config,
    task,
    steps,
    *,
    batch_size=BATCH_SIZE,
    learning_rate=LEARNING_RATE,
    n_checkpoints=N_CHECKPOINTS,
    callback=None,
    time_limit=None,
):
    """Train a tiny GPT of shape ``config`` on ``task`` for ``steps`` Adam updates.

    ``callback(step, losses)`` is called after every update with the losses so far (its time
    counts). With ``time_limit`` (seconds), the run stops with TrainingTooSlowError as soon as
    the steps of its first PROJECT_AFTER seconds after the first step show that it would take
    longer, or when it passes the limit. These are CPU seconds of the training thread
    (``time.thread_time``): what the run costs, whatever else the machine is doing.
    Returns a TrainRun.
    """
    if config.vocab_size != len(task.vocab) or config.context_length < task.context_length:
        raise AttentionInputError(
            f"the config (vocab_size={config.vocab_size}, context_length="
            f"{config.context_length}) does not fit the task (vocabulary of {len(task.vocab)}, "
            f"sequences of {task.context_length}): make it with task.config(...)"
        )
    if steps < 1:
        raise AttentionInputError(f"steps must be at least 1 (got {steps})")
    params = init_params(config)
    data_rng = np.random.default_rng([config.seed, 1])
    eval_ids, eval_targets = task.batch(np.random.default_rng([config.seed, 2]), EVAL_SIZE)
    adam = Adam(params, lr=learning_rate)
    schedule = set(checkpoint_schedule(steps, n_checkpoints).tolist())
    losses = np.empty(steps)
    checkpoints, checkpoint_steps, eval_losses = [], [], []
    start = time.perf_counter()
    cpu_start = timed_from = time.thread_time()
    projected = False

    def keep(step):
        checkpoints.append(_frozen(params))
        checkpoint_steps.append(step)
        eval_losses.append(loss(params, config, eval_ids, eval_targets))

    keep(0)
    for step in range(steps):
        ids, targets = task.batch(data_rng, batch_size)
        losses[step], grads = loss_and_grads(params, config, ids, targets)
        adam.lr = learning_rate_at(step, steps, learning_rate)
        adam.step(params, grads)
        if step + 1 in schedule:
            keep(step + 1)
        if callback is not None:
            callback(step + 1, losses[: step + 1])
        if time_limit is not None:
            now = time.thread_time()
            if step == 0:
                timed_from = now  # the first step pays one-off costs: measure the rate after it
            elif not projected and now - timed_from > PROJECT_AFTER:
                projected = True
                rate = step / (now - timed_from)  # steps per second since the first step
                total = now - cpu_start + (steps - step - 1) / rate
                if total > time_limit:
                    raise TrainingTooSlowError(total, steps, rate, time_limit)
            elif now - cpu_start > time_limit:
                rate = (step + 1) / (now - cpu_start)
                raise TrainingTooSlowError(steps / rate, steps, rate, time_limit)
    return TrainRun(
        config=config,
        task=task,
        steps=steps,
        batch_size=batch_size,
        learning_rate=learning_rate,
        losses=losses,
        checkpoint_steps=np.array(checkpoint_steps),
        checkpoints=tuple(checkpoints),
        eval_losses=np.array(eval_losses),
        seconds=time.perf_counter() - start,
    )
