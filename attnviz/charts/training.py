"""Charts of a tiny GPT's training: loss curves, every head at every checkpoint, the next token.

Pure Plotly, no Streamlit. Token labels are data: HTML-escaped (``escape_label``) and placed
as tick text or ``customdata``, never inside a hover template.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.head_grid import head_grid
from attnviz.charts.line_charts import SCALED_COLOUR, UNSCALED_COLOUR
from attnviz.charts.style import BOTTOM_LEGEND, MAX_LABEL_CHARS, escape_label

TARGET_COLOUR = "#555555"
CHECKPOINT_TITLE_PX = 70  # two lines of title above the grid of heads
SLIDER_PX = 90  # the checkpoint slider under it
ONE_ROW_PANEL_PX = 175  # every head in one row (a projector): each panel this tall
ONE_ROW_TITLE_PX = 115  # three lines of the projector's larger title, and two-line panel titles
ONE_ROW_TITLE_PAD_PX = 30  # its first line kept inside the figure (a wrapped third line)
ONE_ROW_SLIDER_PX = 120  # the slider below the rotated key labels at the projector's text size
LOSS_TICKS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10)  # the log axis, labelled in full
RUN_COLOURS = {"with scaling": SCALED_COLOUR, "without scaling": UNSCALED_COLOUR}


def loss_chart(curves, *, steps=None, target=None, checkpoints=None, title="Training loss"):
    """The training loss of one or more runs against the step, on a log scale.

    Args:
        curves: {run name: (n,) loss of each step so far}; a run named "with scaling" or
            "without scaling" gets the colour the "Why scale" page uses for it.
        steps: the x axis runs to this (the whole run while it is still training).
        target: a dashed horizontal line at this loss.
        checkpoints: {run name: (step array, loss array)} drawn as markers: the loss on the
            fixed evaluation batch at each checkpoint.
    """
    fig = go.Figure()
    for name, losses in curves.items():
        losses = np.asarray(losses, dtype=float)
        fig.add_trace(
            go.Scatter(
                x=np.arange(1, len(losses) + 1),
                y=losses.astype(np.float32),
                mode="lines",
                line=dict(width=1.5, color=RUN_COLOURS.get(name)),
                name=escape_label(f"{name}: loss of each step's batch"),
                hovertemplate="step %{x}: loss %{y:.4g}<extra></extra>",
            )
        )
    for name, (at, losses) in (checkpoints or {}).items():
        fig.add_trace(
            go.Scatter(
                x=np.asarray(at),
                y=np.asarray(losses, dtype=np.float32),
                mode="markers",
                marker=dict(size=7, color=RUN_COLOURS.get(name), symbol="circle-open"),
                name=escape_label(f"{name}: checkpoints (fixed batch)"),
                hovertemplate="checkpoint at step %{x}: loss %{y:.4g}<extra></extra>",
            )
        )
    if target is not None:
        fig.add_hline(
            y=target,
            line=dict(color=TARGET_COLOUR, dash="dash", width=1),
            annotation_text=escape_label(f"target {target:g}"),
            annotation_position="top right",
        )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=340,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(title="step", range=[0, steps] if steps else None),
        yaxis=dict(
            title="loss (nats)",
            type="log",
            tickmode="array",
            tickvals=LOSS_TICKS,
            ticktext=[f"{v:g}" for v in LOSS_TICKS],
        ),
        legend=BOTTOM_LEGEND,  # at the figure's bottom: never under the x axis's title
        hovermode="closest",
    )
    return fig


def checkpoint_figure(
    attention, labels, steps, frame_titles, head_titles, *, n_heads, one_row=False
):
    """Every head's attention at every checkpoint, with a slider that moves through them in the
    browser (Plotly frames: no server round trip).

    Args:
        attention: (n_checkpoints, n_layers, n_heads, T, T) attention for one sequence; masked
            cells (key after query) are drawn blank.
        labels: (T,) the sequence's tokens, shown as typed.
        steps: (n_checkpoints,) the training step of each checkpoint (slider labels).
        frame_titles: (n_checkpoints,) the figure's title at each checkpoint (may hold "<br>").
            Plain text apart from that line break; escaped here.
        head_titles: (n_checkpoints, n_layers * n_heads) each panel's title at each checkpoint.
        one_row: every head in one row of ONE_ROW_PANEL_PX panels (default: a layer a row),
            each panel's title on two lines, room for three lines of title and a projector's
            larger slider: the heads and the slider on a projector's first screen.

    Returns:
        go.Figure showing the last checkpoint, one heatmap trace per head (layer by layer), one
        frame per checkpoint named by its step, and a slider whose active step is the last.
    """
    A = np.asarray(attention, dtype=float)
    n_ckpt, n_layers, H, T, _ = A.shape
    hidden = ~np.tri(T, dtype=bool)  # key after query: masked, drawn blank
    A = np.where(hidden, np.nan, A).reshape(n_ckpt, n_layers * H, T, T).astype(np.float32)
    last = n_ckpt - 1
    fig = head_grid(
        A[last],
        labels,
        labels,
        titles=head_titles[last],
        columns=n_layers * H if one_row else n_heads,
        panel_px=ONE_ROW_PANEL_PX if one_row else None,
    )
    title_px, slider_px = (ONE_ROW_TITLE_PX, ONE_ROW_SLIDER_PX) if one_row else (
        CHECKPOINT_TITLE_PX, SLIDER_PX)  # fmt: skip
    for k, trace in enumerate(fig.data):  # head_grid numbers heads 0..; name the layer too
        layer, head = divmod(k, n_heads)
        trace.hovertemplate = trace.hovertemplate.replace(
            f"head {k}<br>", f"layer {layer} head {head}<br>", 1
        )
        trace.name = f"layer {layer} head {head}"
    base_annotations = [a.to_plotly_json() for a in fig.layout.annotations]

    def title(i):
        return dict(
            text=_escape_lines(frame_titles[i]), x=0, xanchor="left", y=0.99, yanchor="top",
            yref="container", pad=dict(t=ONE_ROW_TITLE_PAD_PX if one_row else 0),
        )  # fmt: skip

    def annotations(i):
        return [
            a | {"text": _escape_lines(t.replace(": ", ":\n", 1) if one_row else t)}
            for a, t in zip(base_annotations, head_titles[i], strict=True)
        ]

    fig.frames = [
        go.Frame(
            name=str(int(steps[i])),
            data=[go.Heatmap(z=A[i, k]) for k in range(n_layers * H)],
            traces=list(range(n_layers * H)),
            layout=dict(title=title(i), annotations=annotations(i)),
        )
        for i in range(n_ckpt)
    ]
    slider_steps = [
        dict(
            method="animate",
            label=str(int(steps[i])),
            args=[
                [str(int(steps[i]))],
                dict(
                    mode="immediate",
                    frame=dict(duration=0, redraw=True),
                    transition=dict(duration=0),
                ),
            ],
        )
        for i in range(n_ckpt)
    ]
    height = fig.layout.height + title_px + slider_px
    fig.update_layout(
        title=title(last),
        annotations=annotations(last),
        height=height,
        margin=dict(l=10, r=10, t=title_px + 20, b=slider_px),
        sliders=[
            dict(
                active=last,
                steps=slider_steps,
                currentvalue=dict(prefix="checkpoint at step "),
                pad=dict(t=slider_px - 40),
                x=0,
                len=1.0,
            )
        ],
    )
    return fig


def _escape_lines(text):
    """``text`` escaped for Plotly, its line breaks ("<br>" or "\\n") kept as <br>."""
    return "<br>".join(escape_label(line) for line in str(text).replace("<br>", "\n").split("\n"))


def next_token_chart(probs, labels, *, title="Next-token probabilities", chosen=None):
    """A bar per token of the vocabulary: its probability of coming next.

    ``probs`` (V,); ``labels`` (V,) the tokens, shown as typed (numeric x axis, escaped tick
    text, so two labels can never merge); ``chosen`` the id of a token to outline (the one just
    sampled), or None.
    """
    probs = np.asarray(probs, dtype=float)
    V = len(probs)
    text = [escape_label(label, MAX_LABEL_CHARS) for label in labels]
    colours = ["#3b528b"] * V
    if chosen is not None:
        colours[chosen] = "#fde725"
    fig = go.Figure(
        go.Bar(
            x=np.arange(V),
            y=probs.astype(np.float32),
            marker=dict(color=colours, line=dict(color="#222222", width=0.5)),
            customdata=np.array(text, dtype=object),
            hovertemplate="token %{customdata}: p = %{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=300,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(tickmode="array", tickvals=list(range(V)), ticktext=text, title="next token"),
        yaxis=dict(title="probability", range=[0, 1]),
        bargap=0.15,
    )
    return fig
