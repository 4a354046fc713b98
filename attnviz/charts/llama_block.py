"""One block of a LLaMA-style decoder as a picture (no Streamlit): the stream x goes through
RMSNorm, attention and a residual add, then RMSNorm, the SwiGLU MLP and a second residual add.

    x → RMSNorm → attention → (+ x) → RMSNorm → SwiGLU MLP → (+) → the next block

The boxes' words come from the model's config, so the picture says this model's sizes.
"""

import itertools

import plotly.graph_objects as go

from attnviz.charts.style import AXIS_TITLE_COLOUR, TEXT_PX, escape_label

BOX_FILL = {"norm": "#eef3fb", "attention": "#fdf0e6", "mlp": "#eaf6ee", "add": "#ffffff"}
LINE = "#55565f"


def block_figure(config, *, text_px=TEXT_PX):
    """The block of ``config`` (a ``causal_lm.config.LlamaConfig``): boxes left to right, the
    two residual paths as arcs over them; ``text_px`` the words' size. Height grows with it."""
    c = config
    boxes = [  # (x centre, width, kind, text)
        (0.3, 0.5, "add", "x"),
        (1.2, 0.9, "norm", "RMSNorm"),
        (2.6, 1.5, "attention", f"attention<br>{c.n_heads} query heads, {c.n_kv_heads} K/V"
                                "<br>RoPE, causal mask"),
        (3.85, 0.4, "add", "+"),
        (4.75, 0.9, "norm", "RMSNorm"),
        (6.05, 1.2, "mlp", f"SwiGLU MLP<br>{c.d_model} → {c.d_ff} → {c.d_model}"),
        (7.2, 0.4, "add", "+"),
        (8.15, 0.9, "add", f"next block<br>(of {c.n_layers})"),
    ]  # fmt: skip
    shapes, annotations = [], []
    low, high = 0.0, 1.0
    for x, width, kind, text in boxes:
        shapes.append(
            dict(type="rect", x0=x - width / 2, x1=x + width / 2, y0=low, y1=high,
                 fillcolor=BOX_FILL[kind], line=dict(color=LINE, width=1.5),
                 layer="below")
        )  # fmt: skip
        annotations.append(
            dict(x=x, y=(low + high) / 2, text=text, showarrow=False,
                 font=dict(size=text_px, color="#1f1f24"))
        )  # fmt: skip
    for (x0, w0, _, _), (x1, w1, _, _) in itertools.pairwise(boxes):
        annotations.append(  # an arrow from one box to the next
            dict(x=x1 - w1 / 2, y=0.5, ax=x0 + w0 / 2, ay=0.5, xref="x", yref="y", axref="x",
                 ayref="y", text="", showarrow=True, arrowhead=2, arrowwidth=1.5,
                 arrowcolor=LINE)
        )  # fmt: skip
    for start, end in ((0.55, 3.85), (4.05, 7.2)):  # the residual paths: around, then added
        shapes.append(
            dict(type="path", path=f"M {start},{high} C {start},{high + 0.9} {end},"
                 f"{high + 0.9} {end},{high}", line=dict(color=LINE, width=1.5, dash="dot"))
        )  # fmt: skip
        annotations.append(
            dict(x=(start + end) / 2, y=high + 0.68, text="residual: added unchanged",
                 showarrow=False, font=dict(size=text_px, color=AXIS_TITLE_COLOUR),
                 yanchor="bottom")
        )  # fmt: skip
    fig = go.Figure()
    fig.update_layout(
        title=dict(text=escape_label(f"One of the {c.n_layers} blocks"), x=0, xanchor="left"),
        shapes=shapes,
        annotations=annotations,
        xaxis=dict(visible=False, range=[0, 8.65], fixedrange=True),
        yaxis=dict(visible=False, range=[-0.15, 2.0], fixedrange=True),
        height=int(10 * text_px + 90),
        margin=dict(l=10, r=10, t=40 + text_px, b=10),
        plot_bgcolor="white",
        showlegend=False,
        dragmode=False,
    )
    return fig
