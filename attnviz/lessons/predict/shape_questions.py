"""Quiz questions about shapes: one head's matrices, and Concat and W_O with h heads.

A shape follows from the rule of the matmul alone; the answer is still read off arrays: the
single head's result, and Concat and W_O built from its output as ``multi_head_attention``
builds them.
"""

import numpy as np

from attnviz.lessons.predict.question import Question, Table, shape_text

# matrix: (how the question names it, the rule, rows, cols, what one row is)
SHAPES = {
    "Q": (
        "Q = X W_Q",
        "(n × d_model) · (d_model × d_k) → n × d_k",
        "n",
        "d_k",
        "row i is the query q_i of token i",
    ),
    "K": (
        "K = X W_K",
        "(n × d_model) · (d_model × d_k) → n × d_k",
        "n",
        "d_k",
        "row j is the key k_j of token j",
    ),
    "V": (
        "V = X W_V",
        "(n × d_model) · (d_model × d_v) → n × d_v",
        "n",
        "d_v",
        "row j is the value v_j of token j",
    ),
    "S": (
        "the score matrix S = Q Kᵀ",
        "(n × d_k) · (d_k × n) → n × n",
        "n",
        "n",
        "S_ij = q_i · k_j: one row per query, one column per key",
    ),
    "A": (
        "the attention matrix A",
        "softmax(S' / T + M) works row by row and keeps the shape of S, n × n",
        "n",
        "n",
        "row i holds query i's weights over the n keys",
    ),
    "output": (
        "the output A V",
        "(n × n) · (n × d_v) → n × d_v",
        "n",
        "d_v",
        "row i is query i's weighted mix of the values",
    ),
}
HEADS = (2, 3, 4)  # how many heads the Concat / W_O question asks about


def _options(answer, candidates, rng):
    """The answer and the distinct wrong candidates, shuffled; None if nothing is left to pick."""
    options = list(dict.fromkeys([answer, *candidates]))
    if len(options) < 2:
        return None
    return tuple(options[k] for k in rng.permutation(len(options)))


def shape(g, rng):
    """What shape is Q, K, V, S, A or the output? Its reveal: every matrix's shape here."""
    r = g.r
    name = str(rng.choice(list(SHAPES)))
    described, rule, rows, cols, meaning = SHAPES[name]
    arrays = {"X": r.X, "Q": r.Q, "K": r.K, "V": r.V, "S": r.scores, "A": r.attention}
    arrays["output"] = r.output
    dims = {"n": r.n, "d_model": r.d_model, "d_k": r.d_k, "d_v": r.d_v}
    answer = shape_text(arrays[name].shape)
    pairs = [("n", "d_k"), ("d_k", "n"), ("n", "d_model"), ("n", "n"), ("n", "d_v")]
    pairs.append(("d_model", "d_k"))
    options = _options(answer, [f"{dims[a]} × {dims[b]}" for a, b in pairs], rng)
    if options is None:
        return None
    values = ", ".join(f"{k} = {v}" for k, v in dims.items())
    why = f"{described}: {rule} = {dims[rows]} × {dims[cols]} (here {values}); {meaning}."
    rules = {"X": ("one row per token", "n × d_model")}
    rules |= {k: (v[0], f"{v[2]} × {v[3]}") for k, v in SHAPES.items()}
    table = Table(
        "matrix",
        tuple(rules),
        ("what it is", "shape", "here"),
        tuple((*rules[k], shape_text(arrays[k].shape)) for k in rules),
    )
    text = f"What shape is {described}?"
    return Question("shape", text, options, answer, why, matrix=name, table=table)


def _concat(h):
    """ "Concat(head_0, head_1, head_2)": the h heads, numbered from 0 as on Multi head."""
    heads = [f"head_{i}" for i in range(h)]
    return f"Concat({', '.join(heads if h <= 4 else [*heads[:2], '…', heads[-1]])})"


def heads_shape(g, rng):
    """With h heads, what shape is Concat(head_0, …, head_(h−1)), or W_O? Read off the arrays of
    h heads that each copy the sidebar's head (only the shapes are asked about), so that each
    head's output is the core's A V, concatenated and projected as ``multi_head_attention``
    does."""
    r = g.r
    h = int(rng.choice(HEADS))
    name = str(rng.choice(["Concat", "W_O"]))
    n, d_model, d_k, d_v = r.n, r.d_model, r.d_k, r.d_v

    heads = [r.output] * h  # every head a copy of the sidebar's head: each outputs A V
    concat = np.concatenate(heads, axis=1)  # h of (n, d_v) side by side -> (n, h d_v)
    W_O = np.random.default_rng(0).normal(0, 1 / np.sqrt(h * d_v), (h * d_v, d_model))
    output = concat @ W_O  # (n, h d_v) @ (h d_v, d_model) -> (n, d_model)
    if name == "Concat":
        described = _concat(h)
        answer = shape_text(concat.shape)  # (n, h d_v)
        pairs = [(n, d_v), (h * n, d_v), (n, d_model), (h * d_v, d_model), (n, h * d_k)]
    else:
        described = "W_O"
        answer = shape_text(W_O.shape)  # (h d_v, d_model)
        pairs = [(d_model, h * d_v), (d_v, d_model), (n, h * d_v), (d_model, d_model)]
    options = _options(answer, [f"{a} × {b}" for a, b in pairs], rng)
    if options is None:
        return None
    head_out = shape_text(heads[0].shape)
    concat, w_o, out = (shape_text(a.shape) for a in (concat, W_O, output))
    why = (
        f"Each head gives its own output A_h V_h, n × d_v = {head_out}. Concat puts the {h} of "
        f"them side by side, so {_concat(h)} is n × h·d_v = {concat}. W_O maps "
        f"each row back to the model's width, so it is h·d_v × d_model = {w_o}, and "
        f"Concat · W_O is n × d_model = {out}: the shape of X, ready for the next layer."
    )
    table = Table(
        "matrix",
        ("each head's output A_h V_h", "Concat(head_0, …, head_(h−1))", "W_O", "Concat · W_O"),
        ("shape", "here"),
        (
            ("n × d_v", head_out),
            ("n × h·d_v", concat),
            ("h·d_v × d_model", w_o),
            ("n × d_model", out),
        ),
    )
    text = (
        f"Multi-head attention with h = {h} heads, each with d_k = {d_k} and d_v = {d_v} (the "
        f"sidebar's widths) and d_model = {d_model}: what shape is {described}?"
    )
    return Question("heads_shape", text, options, answer, why, matrix=name, table=table)
