"""What the "Watch a head learn" page lets the user choose, and its link form. No Streamlit.

A ``RunChoice`` is small and hashable: it keys the page's cache of trained runs, so a class
that opens the same link gets the run already trained. The URL names start with ``gpt_``
(``gpt_task``, ``gpt_layers``, ``gpt_heads``, ``gpt_dmodel``, ``gpt_mlp``, ``gpt_steps``,
``gpt_text``); the seed is the sidebar's ``seed``, shared with every page.
"""

from dataclasses import dataclass, replace

from attnviz.checks import AttentionInputError
from attnviz.limits import GPT_D_MODELS, MAX_GPT_STEPS, MAX_GPT_TEXT_CHARS, MIN_GPT_STEPS
from attnviz.links.readers import quoted, raw_value, read_choice, read_int, read_text
from attnviz.tiny_gpt.config import MAX_HEADS_PER_LAYER, MAX_LAYERS
from attnviz.tiny_gpt.tasks import TASKS, make_task


@dataclass(frozen=True)
class RunChoice:
    """One training run as the page offers it: a task, a model size, steps and a seed."""

    task: str = "previous"
    n_layers: int = 1
    n_heads: int = 2
    d_model: int = 24
    mlp: bool = False
    steps: int = 200
    seed: int = 0
    text: str | None = None  # the text task's training text (None: the nursery rhyme)

    def make_task(self):
        return make_task(self.task, self.text)

    def config(self, scale=True):
        """The Config of this run, with scaling on (the formula) or off (the comparison)."""
        return self.make_task().config(
            d_model=self.d_model,
            n_layers=self.n_layers,
            n_heads=self.n_heads,
            mlp=self.mlp,
            scale=scale,
            seed=self.seed,
        )

    def to_query(self):
        """{URL name: text} for everything but the seed (the sidebar writes that)."""
        query = {
            "gpt_task": self.task,
            "gpt_layers": str(self.n_layers),
            "gpt_heads": str(self.n_heads),
            "gpt_dmodel": str(self.d_model),
            "gpt_mlp": "on" if self.mlp else "off",
            "gpt_steps": str(self.steps),
        }
        if self.task == "text" and self.text is not None:
            query["gpt_text"] = self.text
        return query


# Each task's default run: trains in a few seconds and shows its pattern (benchmarks/tiny_gpt.py).
TASK_DEFAULTS = {
    "previous": dict(n_layers=1, n_heads=2, d_model=24, mlp=False, steps=200),
    "reverse": dict(n_layers=1, n_heads=2, d_model=24, mlp=False, steps=300),
    "sort": dict(n_layers=1, n_heads=2, d_model=24, mlp=False, steps=400),
    "induction": dict(n_layers=2, n_heads=2, d_model=24, mlp=False, steps=600),
    "text": dict(n_layers=2, n_heads=2, d_model=24, mlp=True, steps=200),
}
INT_RANGES = {
    "gpt_layers": ("n_layers", 1, MAX_LAYERS),
    "gpt_heads": ("n_heads", 1, MAX_HEADS_PER_LAYER),
    "gpt_steps": ("steps", MIN_GPT_STEPS, MAX_GPT_STEPS),
}
QUERY_NAMES = ("gpt_task", *INT_RANGES, "gpt_dmodel", "gpt_mlp", "gpt_text")
ON_OFF = {"on": True, "off": False}


def default_choice(task="previous", seed=0):
    """The default run of ``task``."""
    return RunChoice(task=task, seed=seed, **TASK_DEFAULTS[task])


def choice_from_query(query, seed=0):
    """(RunChoice, warnings) from the URL's query mapping; never raises.

    A missing value takes the task's default; a value that is not understood keeps it, a
    number out of range is clamped, a repeated name takes its last value: each with a warning.
    """
    task, warnings = read_choice(query, "gpt_task", {name: name for name in TASKS}, "previous")
    choice = default_choice(task, seed)
    values = {}
    for name, (field, low, high) in INT_RANGES.items():
        if name in query:
            default = getattr(choice, field)
            values[field], said = read_int(query, name, low=low, high=high, default=default)
            warnings += said
    if "gpt_dmodel" in query:
        raw, said = raw_value(query, "gpt_dmodel")
        warnings += said
        try:
            number = int(raw.strip())
        except ValueError:
            number = None
        if number in GPT_D_MODELS:
            values["d_model"] = number
        else:
            near = (
                choice.d_model
                if number is None
                else min(GPT_D_MODELS, key=lambda d: abs(d - number))
            )
            warnings.append(
                f"`gpt_dmodel={quoted(raw.strip())}` in the link is not one of "
                f"{', '.join(map(str, GPT_D_MODELS))}: using {near}."
            )
            values["d_model"] = near
    if "gpt_mlp" in query:
        values["mlp"], said = read_choice(query, "gpt_mlp", ON_OFF, choice.mlp)
        warnings += said
    if task == "text" and "gpt_text" in query:
        text, said = read_text(query, "gpt_text", max_chars=MAX_GPT_TEXT_CHARS)
        warnings += said
        try:
            make_task("text", text)
            values["text"] = text
        except AttentionInputError as exc:
            warnings.append(f"the text in the link cannot be used ({exc}): using the rhyme.")
    return replace(choice, **values), warnings
