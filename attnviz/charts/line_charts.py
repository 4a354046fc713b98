"""Line charts of the lessons: the variance of q . k, saturation, the softmax gradient, temperature.

Each builder takes what an ``attnviz.lessons`` experiment returns and gives a ``go.Figure``, with
the x axis on a log scale (d_k, a factor or a temperature that doubles or grows tenfold). No
Streamlit here. Token labels reach the figure only HTML-escaped (see ``escape_label``) and only
as trace names and ``customdata``, never inside a hover template.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.style import BOTTOM_LEGEND, MAX_LABEL_CHARS, TEXT_PX, escape_label

SCALED_COLOUR = "#1b7837"  # green: with scaling, S / sqrt(d_k)
UNSCALED_COLOUR = "#b2182b"  # red: without scaling, S
THEORY_COLOUR = "#555555"
BAND_COLOUR = "rgba(85, 85, 85, 0.18)"
MARK_COLOUR = "#7b3294"  # the value the student picked (a d_k, a temperature)
MAX_ROW_LINES = 12  # one line per attention row up to this many rows, else min/mean/max
BAND_SE = 2  # the theory band is +- this many standard errors (about 95% of measurements)
_FLOOR = 1e-6  # a log axis cannot show 0 or less: band edges are kept above this fraction
JACOBIAN_NAME = "‖J‖_F (Frobenius norm)"  # the gradient chart's line: which norm of J


def _layout(fig, *, title, x_title, y_title, height=380, log_y=False, y_range=None, x_ticks=None):
    """Titles, a log x axis (ticks at ``x_ticks``, else at the powers of 10), the legend below
    the x axis's title (at the figure's bottom, so that it never sits under that title)."""
    x_axis = dict(title=escape_label(x_title), type="log", dtick=1)
    if x_ticks is not None:
        x_axis.update(
            tickmode="array", tickvals=list(x_ticks), ticktext=[f"{v:g}" for v in x_ticks]
        )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=height,
        margin=dict(l=10, r=10, t=70, b=10),
        xaxis=x_axis,
        yaxis=dict(
            title=escape_label(y_title),
            type="log" if log_y else "linear",
            dtick=1 if log_y else None,
        ),
        legend=BOTTOM_LEGEND,
        hovermode="x unified",
    )
    if y_range is not None:
        fig.update_yaxes(range=y_range)
    return fig


def _mark(fig, x, text):
    """A dotted vertical line at ``x`` (on a log x axis) labelled ``text`` above the plot.

    The label is a separate annotation placed at log10(x): on a log axis Plotly reads an
    annotation's x as the exponent (a shape's x as the value), and ``add_vline``'s own label
    would be read the wrong way, stretching the axis to 10^x.
    """
    fig.add_vline(x=x, line=dict(color=MARK_COLOUR, dash="dot", width=2))
    fig.add_annotation(
        x=float(np.log10(x)),
        xref="x",
        y=1,
        yref="paper",
        yanchor="bottom",
        text=escape_label(text),
        showarrow=False,
        font=dict(color=MARK_COLOUR),
    )


def _theory_and_measured(fig, d, line, se, low, *, theory, measured):
    """A band of BAND_SE standard errors from ``low`` up around the theory ``line``, the theory
    line (dashed) and the measured line (with markers), in that order: one family of the chart.

    ``theory`` = (legend group, name, dash); ``measured`` = (values, name, colour).
    """
    group, theory_name, dash = theory
    values, measured_name, colour = measured
    label = f"theory ± {BAND_SE} standard errors" + (" (scaled)" if group != "theory" else "")
    _band(fig, d, low, line + BAND_SE * se, label, group)
    fig.add_trace(
        go.Scatter(
            x=d,
            y=line,
            mode="lines",
            line=dict(color=THEORY_COLOUR, dash=dash),
            name=theory_name,
            legendgroup=group,
            hovertemplate="theory %{y:.4g}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=d,
            y=values,
            mode="lines+markers",
            line=dict(color=colour),
            name=measured_name,
            hovertemplate=f"{measured_name} = %{{y:.4g}}<extra></extra>",
        )
    )


def _band(fig, x, low, high, name, group):
    """A shaded band between ``low`` and ``high`` (two traces: the lower edge, then the fill)."""
    fig.add_trace(
        go.Scatter(
            x=x,
            y=low,
            mode="lines",
            line=dict(width=0),
            hoverinfo="skip",
            showlegend=False,
            legendgroup=group,
            name=f"{name} (lower edge)",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=high,
            mode="lines",
            line=dict(width=0),
            fill="tonexty",
            fillcolor=BAND_COLOUR,
            hoverinfo="skip",
            legendgroup=group,
            name=name,
        )
    )


def variance_chart(variance, *, mark_d_k=None):
    """Measured Var(q . k) and Var(q . k / sqrt(d_k)) against d_k, beside the theory.

    ``variance`` is a ``lessons.DotProductVariance``. Traces, by name: "measured Var(q·k)",
    "theory: Var = d_k" (with a band of +-BAND_SE standard errors), "measured Var(q·k / √d_k)",
    "theory: Var = 1" (with its band). Both axes are logarithmic: the theory is the line y = x.
    ``mark_d_k`` draws a dotted line at that d_k.
    """
    d = np.asarray(variance.d_k, dtype=float)
    se = np.asarray(variance.variance_se, dtype=float)
    theory = np.asarray(variance.theory_variance, dtype=float)
    fig = go.Figure()
    _theory_and_measured(
        fig, d, theory, se, np.maximum(theory - BAND_SE * se, _FLOOR * theory),
        theory=("theory", "theory: Var = d_k", "dash"),
        measured=(variance.variance, "measured Var(q·k)", UNSCALED_COLOUR),
    )  # fmt: skip
    scaled_theory = np.asarray(variance.theory_scaled_variance, dtype=float)
    scaled_se = se / d  # the same samples divided by sqrt(d_k): the variance divides by d_k
    _theory_and_measured(
        fig, d, scaled_theory, scaled_se,
        np.maximum(scaled_theory - BAND_SE * scaled_se, _FLOOR),
        theory=("theory scaled", "theory: Var = 1", "dot"),
        measured=(variance.scaled_variance, "measured Var(q·k / √d_k)", SCALED_COLOUR),
    )  # fmt: skip
    if mark_d_k is not None:
        _mark(fig, mark_d_k, f"your d_k = {mark_d_k}")
    return _layout(
        fig,
        title=f"Variance of q·k over {variance.n_samples} random pairs, for each d_k",
        x_title="d_k (log scale)",
        y_title="variance (log scale)",
        x_ticks=d,
        log_y=True,
        height=440,
    )


SATURATION_STATS = {  # RowStats field: (chart title, y axis title, y range)
    "normalised_entropy": (
        "Rows' entropy (1 = uniform, 0 = one-hot)",
        "mean entropy / log(keys)",
        [-0.03, 1.03],
    ),
    "max_weight": ("Rows' largest weight (1 = one-hot)", "mean largest weight", [-0.03, 1.03]),
    "entropy": ("Rows' entropy", "mean entropy (nats)", None),
}


def saturation_chart(curve, stat="max_weight", *, mark_d_k=None):
    """One row statistic of ``curve`` (a ``lessons.SaturationCurve``) against d_k.

    ``stat`` is "max_weight", "normalised_entropy" or "entropy". Four traces, by name:
    "sentence, scaled", "sentence, unscaled", "random q, k, scaled", "random q, k,
    unscaled"; green is scaled, red unscaled, solid the sentence, dashed the random data.
    """
    if stat not in SATURATION_STATS:
        raise ValueError(f"stat must be one of {', '.join(SATURATION_STATS)} (got {stat!r})")
    title, y_title, y_range = SATURATION_STATS[stat]
    d = np.asarray(curve.d_k, dtype=float)
    fig = go.Figure()
    lines = [
        ("sentence, scaled", curve.sentence_scaled, SCALED_COLOUR, "solid"),
        ("sentence, unscaled", curve.sentence_unscaled, UNSCALED_COLOUR, "solid"),
        ("random q, k, scaled", curve.random_scaled, SCALED_COLOUR, "dash"),
        ("random q, k, unscaled", curve.random_unscaled, UNSCALED_COLOUR, "dash"),
    ]
    for name, stats, colour, dash in lines:
        fig.add_trace(
            go.Scatter(
                x=d,
                y=getattr(stats, stat),
                mode="lines+markers",
                line=dict(color=colour, dash=dash),
                name=name,
                hovertemplate=f"{name}: %{{y:.3f}}<extra></extra>",
            )
        )
    if mark_d_k is not None:
        _mark(fig, mark_d_k, f"d_k = {mark_d_k}")
    return _layout(
        fig, title=title, x_title="d_k (log scale)", y_title=y_title, y_range=y_range, x_ticks=d
    )


def gradient_chart(gradient, marks=()):
    """The softmax's Jacobian norm and largest weight as its logits are multiplied by c.

    ``gradient`` is a ``lessons.SoftmaxGradient``. Traces, by name: JACOBIAN_NAME and
    "largest weight". ``marks`` is a sequence of (c, label), each drawn as a dotted line.
    """
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=gradient.factor,
            y=gradient.jacobian_norm,
            mode="lines",
            line=dict(color=SCALED_COLOUR, width=3),
            name=JACOBIAN_NAME,
            hovertemplate="‖J‖_F = %{y:.4f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=gradient.factor,
            y=gradient.max_weight,
            mode="lines",
            line=dict(color=UNSCALED_COLOUR, dash="dash"),
            name="largest weight",
            hovertemplate="largest weight = %{y:.4f}<extra></extra>",
        )
    )
    for c, label in marks:
        _mark(fig, c, label)
    return _layout(
        fig,
        title="The softmax's gradient vanishes as its rows saturate",
        x_title="factor c multiplying the logits (log scale)",
        y_title="mean over rows",
        y_range=[-0.03, 1.03],
    )


def temperature_chart(sweep, labels, *, current=None):
    """Each row's entropy against the temperature T (a ``lessons.TemperatureSweep``).

    One line per row (named by its token label, escaped) when there are at most MAX_ROW_LINES
    rows, else "smallest row", "mean over rows" and "largest row". Always "uniform over all
    keys" (log n nats, the most a row can have) and, with ``current``, a dotted line at that T.
    """
    entropy = np.asarray(sweep.entropy, dtype=float)  # (t, n)
    T = np.asarray(sweep.temperature, dtype=float)
    n = entropy.shape[1]
    if len(labels) != n:
        raise ValueError(f"labels must match the rows: {len(labels)} labels for {n} rows")
    fig = go.Figure()
    if n <= MAX_ROW_LINES:
        for i, label in enumerate(labels):
            name = escape_label(label, MAX_LABEL_CHARS)
            fig.add_trace(
                go.Scatter(
                    x=T,
                    y=entropy[:, i],
                    mode="lines",
                    name=name,
                    customdata=np.full(len(T), escape_label(label), dtype=object),
                    hovertemplate="%{customdata}: %{y:.3f}<extra></extra>",
                )
            )
    else:
        for name, values, width in (
            ("smallest row", entropy.min(axis=1), 1),
            ("mean over rows", entropy.mean(axis=1), 3),
            ("largest row", entropy.max(axis=1), 1),
        ):
            fig.add_trace(
                go.Scatter(
                    x=T,
                    y=values,
                    mode="lines",
                    line=dict(width=width),
                    name=name,
                    hovertemplate=f"{name}: %{{y:.3f}}<extra></extra>",
                )
            )
    fig.add_trace(
        go.Scatter(
            x=[T.min(), T.max()],
            y=[np.log(n)] * 2,
            mode="lines",
            line=dict(color=THEORY_COLOUR, dash="dash"),
            name=f"uniform over all {n} keys: log {n}",
            hoverinfo="skip",
        )
    )
    if current is not None:
        _mark(fig, current, f"T = {current:.3g}")
    return _layout(
        fig,
        title="Each row's entropy as the temperature T varies",
        x_title="temperature T (log scale)",
        y_title="entropy (nats)",
        y_range=[-0.05 * max(np.log(n), 0.1), 1.05 * max(np.log(n), 0.1)],
    )


def vector_bars(values, labels, *, title="", value_name="value"):
    """Bar chart of one vector (length m) with a label per bar, e.g. one row of A over keys."""
    values = np.asarray(values, dtype=float)
    fig = go.Figure(
        go.Bar(
            x=np.arange(len(values)),
            y=values,
            customdata=[escape_label(label) for label in labels],
            hovertemplate=f"%{{customdata}}<br>{value_name} = %{{y:.6g}}<extra></extra>",
            marker_color=np.where(values >= 0, "#2166ac", "#b2182b"),
        )
    )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=260,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(len(values))),
            ticktext=[escape_label(label, MAX_LABEL_CHARS) for label in labels],
        ),
        yaxis=dict(tickfont=dict(size=TEXT_PX)),  # named, so that a projector enlarges it too
    )
    return fig
