r"""The course module's Summary as data: one row per concept, from X to the output.

The seed's Summary table has the columns Concept and Formula; this one adds each matrix's shape
(as symbols and with a result's live sizes) and what it means, and covers every step the
lesson draws: X, W_Q, W_K, W_V, Q, K, V, S, S', A and the output. The formulas follow the
result: S' = S when scaling is off, and A shows the temperature T and the mask M when they
apply, so that the cheat sheet never says more than was computed.

    rows = summary_rows(result)   # [SummaryRow(concept, formula, symbols, shape, meaning), ...]
    rows[4].formula                # "Q = XW_Q"
    rows[4].shape                  # (n, d_k), e.g. (6, 4)

numpy only, no Streamlit: the step page draws the rows as a table.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class SummaryRow:
    """One concept: its name, formula (LaTeX), shape as symbols (LaTeX) and as live sizes
    (a tuple of ints), and what it means (plain text)."""

    concept: str
    formula: str
    symbols: str
    shape: tuple
    meaning: str

    @property
    def sizes(self):
        """The live shape as text: "6 × 4"."""
        return " × ".join(str(x) for x in self.shape)

    @property
    def sizes_latex(self):
        """The live shape in LaTeX: "6 \\times 4"."""
        return r" \times ".join(str(x) for x in self.shape)


def _bias(result, L):
    """The bias term ' + b_L' when the result's projection L has one (the real model's), else ''."""
    return rf" + b_{L}" if getattr(result, f"b_{L}") is not None else ""


def scaled_formula(result, latex=False):
    """S' as the result computed it, as text ("S' = S / √d_k", or "S' = S (scaling off)") or
    as LaTeX: the one place this formula is written."""
    if latex:
        return r"S' = S / \sqrt{d_k}" if result.scale else r"S' = S \ \text{(scaling off)}"
    return "S' = S / √d_k" if result.scale else "S' = S (scaling off)"


def attention_formula(result, latex=False):
    """A's formula as the softmax sees it, as text or LaTeX: softmax(S'), with / T and + M
    when they apply (the one place this formula is written)."""
    inside = "S'" if result.temperature == 1 else f"S' / {result.temperature:g}"
    if result.mask is not None:
        inside += " + M"
    return rf"A = \mathrm{{softmax}}({inside})" if latex else f"A = softmax({inside})"


def summary_rows(result):
    """The Summary of ``result`` (an AttentionResult): a list of 11 SummaryRow, X first, the
    output last; each shape is the shape of the result's own array."""
    r = result
    scaled = (
        f"the scores divided by √d_k = {r.scale_factor:.4g}, so that their spread no longer "
        "grows with d_k (about 1 when q and k have unit-variance entries)"
        if r.scale
        else "scaling is off here, so S' is S"
    )
    return [
        SummaryRow(
            "Input embedding",
            r"X",
            r"n \times d_{model}",
            r.X.shape,
            "one row per token: the tokens' embeddings (with positions if added)",
        ),
        SummaryRow(
            "Query weights",
            r"W_Q",
            r"d_{model} \times d_k",
            r.W_Q.shape,
            "turn an embedding into a query",
        ),
        SummaryRow(
            "Key weights",
            r"W_K",
            r"d_{model} \times d_k",
            r.W_K.shape,
            "turn an embedding into a key",
        ),
        SummaryRow(
            "Value weights",
            r"W_V",
            r"d_{model} \times d_v",
            r.W_V.shape,
            "turn an embedding into a value",
        ),
        SummaryRow(
            "Query",
            r"Q = XW_Q" + _bias(r, "Q"),
            r"n \times d_k",
            r.Q.shape,
            "row i: what token i is looking for",
        ),
        SummaryRow(
            "Key",
            r"K = XW_K" + _bias(r, "K"),
            r"n \times d_k",
            r.K.shape,
            "row j: what token j offers to be matched on",
        ),
        SummaryRow(
            "Value",
            r"V = XW_V" + _bias(r, "V"),
            r"n \times d_v",
            r.V.shape,
            "row j: what token j passes on when attended to",
        ),
        SummaryRow(
            "Attention score",
            r"S = QK^T, \ S_{ij} = q_i \cdot k_j",
            r"n \times n",
            r.scores.shape,
            "how well key j matches query i (not symmetric)",
        ),
        SummaryRow(
            "Scaled score",
            scaled_formula(r, latex=True),
            r"n \times n",
            r.scaled_scores.shape,
            scaled,
        ),
        SummaryRow(
            "Attention matrix",
            attention_formula(r, latex=True),
            r"n \times n",
            r.attention.shape,
            "row i: how much query i attends to each key, summing to 1",
        ),
        SummaryRow(
            "Attention output",
            r"\mathrm{Output} = AV",
            r"n \times d_v",
            r.output.shape,
            "row i: the values' average, weighted by row i of A",
        ),
    ]
