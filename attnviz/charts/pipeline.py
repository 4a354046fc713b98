"""The pipeline of self-attention as a diagram: Graphviz DOT text, with the live shapes.

    X -> Q, K, V -> S = QKᵀ -> S' = S / √d_k -> A = softmax(S') -> output = AV

Each matrix is a box in its family's colour (``charts.matrix.FAMILIES``, the same as the
charts' titles); each arrow says what is done. No Streamlit here: ``st.graphviz_chart`` draws
the text in the browser (no Graphviz install on the server).
"""

from attnviz.charts.matrix import FAMILIES


def _box(name, label, family, shape):
    colour = FAMILIES[family][2]
    return (
        f'  {name} [label=<<b>{label}</b><br/><font point-size="11">{shape}</font>>, '
        f'color="{colour}", fontcolor="{colour}"];'
    )


def pipeline_dot(n, d_model, d_k, d_v, *, scale=True, masked=False, temperature=1.0):
    """DOT text of the pipeline for these sizes; the softmax's arrow says what it sees
    (÷ T, + M) when a temperature or a mask is on, and the scaling arrow says when it is off."""
    softmax = "softmax(S'"
    softmax += "" if temperature == 1 else f" / {temperature:g}"
    softmax += " + M)" if masked else ")"
    lines = [
        "digraph attention {",
        '  rankdir=LR; bgcolor="transparent"; nodesep=0.25; ranksep=0.45;',
        '  node [shape=box, style="rounded,bold", fontname="Helvetica", fontsize=16];',
        '  edge [fontname="Helvetica", fontsize=12, color="#555555", fontcolor="#262730"];',
        _box("X", "X", "X", f"{n} × {d_model}"),
        _box("Q", "Q", "Q", f"{n} × {d_k}"),
        _box("K", "K", "K", f"{n} × {d_k}"),
        _box("V", "V", "V", f"{n} × {d_v}"),
        _box("S", "S = QKᵀ", "S", f"{n} × {n}"),
        _box("Sp", "S'", "S", f"{n} × {n}"),
        _box("A", "A", "A", f"{n} × {n}, rows sum to 1"),
        _box("O", "Output = AV", "O", f"{n} × {d_v}"),
        '  X -> Q [label="× W_Q"]; X -> K [label="× W_K"]; X -> V [label="× W_V"];',
        '  Q -> S [label="queries"]; K -> S [label="keys (ᵀ)"];',
        f'  S -> Sp [label="{"÷ √d_k" if scale else "no scaling"}"];',
        f'  Sp -> A [label="{softmax}"];',
        '  A -> O [label="weights"]; V -> O [label="values"];',
        "}",
    ]
    return "\n".join(lines)
