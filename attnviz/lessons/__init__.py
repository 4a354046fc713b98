"""The lessons' experiments: why divide by sqrt(d_k).

numpy only (no Streamlit, no Plotly): the lesson pages call these and draw what they return.
Every function takes the shared ``Settings`` (or plain arrays), gets every step of attention
from the core, and is deterministic from its seed.

    from attnviz import lessons
    lessons.dot_product_variance()            # Var(q . k) = d_k, measured
    lessons.saturation_curve(settings)        # rows go one-hot without scaling as d_k grows
"""

from attnviz.lessons.common import TIE_TOLERANCE, reattend, row_entropy
from attnviz.lessons.scaling import (
    DEFAULT_D_KS,
    DEFAULT_FACTORS,
    DotProductVariance,
    RowStats,
    SaturationCurve,
    SoftmaxGradient,
    dot_product_variance,
    saturation_curve,
    scaling_pair,
    softmax_gradient_norm,
)

__all__ = [
    "DEFAULT_D_KS",
    "DEFAULT_FACTORS",
    "TIE_TOLERANCE",
    "DotProductVariance",
    "RowStats",
    "SaturationCurve",
    "SoftmaxGradient",
    "dot_product_variance",
    "reattend",
    "row_entropy",
    "saturation_curve",
    "scaling_pair",
    "softmax_gradient_norm",
]
