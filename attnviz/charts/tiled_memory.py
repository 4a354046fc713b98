"""The memory attention needs as n grows: full (n x n) vs tiled (n x b), on log axes.

Pure Plotly: the sizes come in as arrays (from ``attnviz.tiled.attention_memory``), a figure
goes out.
"""

import numpy as np
import plotly.graph_objects as go

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")
FULL_COLOUR = "#b2182b"
TILED_COLOUR = "#2166ac"


def format_bytes(n_bytes):
    """``n_bytes`` in binary units, 3 significant digits: 288 -> "288 B", 2**20 -> "1 MiB"."""
    value = float(n_bytes)
    for unit in _UNITS:
        if abs(value) < 1024 or unit == _UNITS[-1]:
            return f"{value:.3g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def memory_chart(ns, full_bytes, tiled_bytes, *, current_n, block_size):
    """Bytes of one (n, n) matrix and of one (n, b) block against n, both axes logarithmic.

    Args:
        ns: (k,) increasing token counts; must contain ``current_n``.
        full_bytes, tiled_bytes: (k,) the bytes each way at every n.
        current_n: the n of the current sentence, marked on both lines.
        block_size: b, named in the legend.

    Returns:
        go.Figure with traces "full" and "tiled" (lines over ``ns``) and "current" (two
        markers at ``current_n``). The y ticks are powers of 1024 named in B, KiB, MiB, GiB.
    """
    ns = np.asarray(ns)
    full = np.asarray(full_bytes, dtype=float)
    tiled = np.asarray(tiled_bytes, dtype=float)
    if not (ns.shape == full.shape == tiled.shape) or ns.ndim != 1 or ns.size == 0:
        raise ValueError(
            f"ns, full_bytes and tiled_bytes must be 1-D and of one length (got {ns.shape}, "
            f"{full.shape}, {tiled.shape})"
        )
    if np.any(np.diff(ns) <= 0):
        raise ValueError("ns must be strictly increasing")
    where = np.flatnonzero(ns == current_n)
    if where.size == 0:
        raise ValueError(f"ns must contain current_n={current_n}, the point to mark")
    i = int(where[0])
    fig = go.Figure()
    for name, values, colour, label in (
        ("full", full, FULL_COLOUR, "full: one n × n matrix"),
        ("tiled", tiled, TILED_COLOUR, f"tiled: one n × b block (b = {block_size})"),
    ):
        fig.add_trace(
            go.Scatter(
                x=ns,
                y=values,
                mode="lines",
                name=label,
                line=dict(color=colour, width=3, dash="solid" if name == "full" else "dash"),
                customdata=[format_bytes(v) for v in values],
                hovertemplate=f"{label}<br>n = %{{x}}: %{{customdata}}<extra></extra>",
                meta=name,
            )
        )
    fig.add_vline(x=ns[i], line=dict(color="#888", width=1, dash="dot"))
    fig.add_trace(
        go.Scatter(
            x=[ns[i], ns[i]],
            y=[full[i], tiled[i]],
            mode="markers+text",
            name=f"this sentence: n = {current_n}",
            marker=dict(size=12, color=[FULL_COLOUR, TILED_COLOUR], line=dict(width=1)),
            text=[format_bytes(full[i]), format_bytes(tiled[i])],
            textposition=["top left", "bottom right"],
            hovertemplate="n = %{x}: %{text}<extra></extra>",
            meta="current",
        )
    )
    low, high = min(full.min(), tiled.min()), max(full.max(), tiled.max())
    y_ticks = [2.0**p for p in range(0, 64, 3) if low / 8 < 2.0**p < high * 8]  # 8x apart
    x_ticks = [2**p for p in range(0, 64, 2) if 2**p <= ns[-1]]  # 4x apart
    fig.update_layout(
        height=420,
        margin=dict(l=10, r=10, t=30, b=10),
        xaxis=dict(
            type="log", title="tokens n", tickvals=x_ticks, ticktext=[str(t) for t in x_ticks]
        ),
        yaxis=dict(
            type="log",
            title="memory of the scores",  # the legend says which: (n, n) or (n, b)
            tickvals=y_ticks,
            ticktext=[format_bytes(t) for t in y_ticks],
        ),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        hovermode="closest",
    )
    return fig
