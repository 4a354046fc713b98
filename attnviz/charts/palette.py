"""Colours that work without colour vision: the standard palette and a colour-blind-safe one.

Every chart builder draws with the standard colours (``charts.style`` and each chart's own);
``recolour`` turns a finished figure into another palette by swapping the colours that carry a
meaning in pairs. In the standard palette "scaled" is green and "unscaled" red, a pair that
about one man in twelve cannot tell apart; the colour-blind-safe palette takes them from
Okabe and Ito's set (blue and vermillion, apart for every kind of colour vision) and draws the
masked cells darker, away from the light centre of the signed colour scale. The colour scales
themselves (RdBu and Viridis) are already safe and stay. Every meaning is also carried by a
name in the legend or a line style, whatever the palette. No Streamlit here.
"""

import re

from attnviz.charts.line_charts import SCALED_COLOUR, UNSCALED_COLOUR
from attnviz.charts.style import MASKED_COLOUR

STANDARD, COLOUR_BLIND = "standard", "colour-blind safe"
# palette -> {a standard colour (lower-case hex): the colour it becomes}
PALETTES = {
    STANDARD: {},
    COLOUR_BLIND: {
        SCALED_COLOUR: "#0072b2",  # Okabe-Ito blue
        UNSCALED_COLOUR: "#d55e00",  # Okabe-Ito vermillion
        MASKED_COLOUR: "#6e6e6e",  # masked cells: darker than any light cell of a scale
    },
}
_RGB = re.compile(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(,\s*[\d.]+\s*)?\)")


def _rgb(hex_colour):
    return tuple(int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))


def _swap(text, swaps):
    """``text`` with every colour in ``swaps`` replaced, written as #rrggbb or rgb(a)."""
    lower = text.lower()
    if lower in swaps:
        return swaps[lower]
    match = _RGB.fullmatch(lower)
    if match:
        rgb = tuple(int(v) for v in match.groups()[:3])
        for old, new in swaps.items():
            if _rgb(old) == rgb:
                r, g, b = _rgb(new)
                alpha = match.group(4)
                return f"rgba({r},{g},{b}{alpha})" if alpha else f"rgb({r},{g},{b})"
    return text


def _walk(value, swaps):
    if isinstance(value, str):
        return _swap(value, swaps)
    if isinstance(value, dict):
        return {k: _walk(v, swaps) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, swaps) for v in value]
    return value  # numbers and arrays: no colours


def recolour(fig, palette):
    """``fig`` drawn in ``palette`` (a name in PALETTES): the figure itself for the standard
    one, else its dict form (what ``st.plotly_chart`` draws, without a second validation) with
    the meaning-carrying colours swapped (traces, frames, shapes, annotations, colour scales'
    stops)."""
    swaps = PALETTES[palette]
    if not swaps:
        return fig
    drawn = _walk(fig.to_dict(), swaps)
    layout = drawn.setdefault("layout", {})
    if "datarevision" in layout:  # drawn anew when the palette changes
        layout["datarevision"] = f"{layout['datarevision']}-{palette}"
    return drawn
