"""Positions' numbers, kept for every visitor: the permutation experiment of the settings'
sentence, once per (settings, shuffle seed). No Streamlit.
"""

from dataclasses import replace

from attnviz import lessons
from attnviz.serve.example import cached_example
from attnviz.serve.store import kept


@kept(entries=16)
def cached_permutation_experiment(settings, seed):
    """lessons.permutation_experiment of the settings' sentence, once per (settings, seed).

    The two examples it compares, positions off and on, are the frame's cached examples of the
    settings with no mask: a causal mask is itself information about order. Keyed on the
    Settings and the shuffle seed; each entry holds two more AttentionResults (the shuffled
    ones, up to ~40 MB at the limits), so 16 entries at most. Read-only.
    """
    off = cached_example(replace(settings, positions=False, mask="none"))
    on = cached_example(replace(settings, positions=True, mask="none"))
    return lessons.permutation_experiment(off, on, seed=seed)
