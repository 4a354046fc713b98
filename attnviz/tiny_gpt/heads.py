"""What each head looks at: the share of its weight on a few positions, averaged over queries.

For an attention matrix A (T, T) of one sequence, and each query i >= 1 (query 0 can only see
itself, so it says nothing), the patterns are the weight A[i, j] on

    previous   j = i - 1, the previous token
    same       j = i, its own token
    first      j = 0, the first token
    answer     j = the position that holds what the answer needs (the task says which; only
               queries that have one count)

A head's number for a pattern is the mean of that weight over the queries: 0.93 for
"previous" means that, on average, 93% of each row's weight is on the previous token.
"""

import numpy as np

PATTERNS = {
    "previous": "the previous token",
    "same": "its own token",
    "first": "the first token",
}


def head_patterns(A, answers=None):
    """{pattern: (..., n_layers, n_heads) mean weight} for attention A (..., T, T) of one sequence.

    ``answers`` (T,) int: the answer's key position for each query, -1 where there is none; the
    "answer" pattern is left out without it or when no query has one.
    """
    A = np.asarray(A)
    T = A.shape[-1]
    i = np.arange(1, T)  # queries 1 .. T-1
    stats = {
        "previous": A[..., i, i - 1].mean(axis=-1),
        "same": A[..., i, i].mean(axis=-1),
        "first": A[..., i, 0].mean(axis=-1),
    }
    if answers is not None:
        answers = np.asarray(answers)
        q = np.flatnonzero(answers[1:] >= 0) + 1  # queries >= 1 that have an answer position
        if q.size:
            stats["answer"] = A[..., q, answers[q]].mean(axis=-1)
    return stats


def strongest(stats):
    """(pattern, layer, head, value) of the largest mean weight over every head and pattern."""
    name = max(stats, key=lambda k: stats[k].max())
    layer, head = np.unravel_index(np.argmax(stats[name]), stats[name].shape)
    return name, int(layer), int(head), float(stats[name][layer, head])


def head_strongest(stats, layer, head):
    """(pattern, value): where head ``head`` of layer ``layer`` puts most of its weight."""
    name = max(stats, key=lambda k: stats[k][layer, head])
    return name, float(stats[name][layer, head])


def pattern_name(pattern, answer_name=None):
    """The pattern in words: "the previous token", or the task's name for the answer's place."""
    if pattern == "answer":
        return answer_name or "the answer's position"
    return PATTERNS[pattern]


def head_sentence(layer, head, pattern, value, answer_name=None):
    """One sentence: "layer 0 head 1 puts 0.93 of its weight on the previous token"."""
    return (
        f"layer {layer} head {head} puts {value:.2f} of its weight on "
        f"{pattern_name(pattern, answer_name)}"
    )
