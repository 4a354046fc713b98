"""The lessons' experiments: why divide by sqrt(d_k), masks and temperature, positions, a quiz.

numpy only (no Streamlit, no Plotly): the lesson pages call these and draw what they return.
Every function takes the shared ``Settings`` (or plain arrays), gets every step of attention
from the core, and is deterministic from its seed.

    from attnviz import lessons
    lessons.dot_product_variance()            # Var(q . k) = d_k, measured
    lessons.saturation_curve(settings)        # rows go one-hot without scaling as d_k grows
    lessons.temperature_sweep(settings)       # T -> 0: argmax, T -> infinity: uniform
    lessons.permutation_experiment(settings)  # no positions: shuffled in, shuffled out
    lessons.quiz(example)                     # predict, then reveal
"""

from attnviz.lessons.common import TIE_TOLERANCE, reattend, row_entropy
from attnviz.lessons.masks import (
    DEFAULT_TEMPERATURES,
    MASK_MODES,
    TemperatureSweep,
    argmax_limit,
    build_mask,
    temperature_sweep,
    uniform_limit,
)
from attnviz.lessons.positions import (
    PermutationExperiment,
    draw_permutation,
    permutation_experiment,
)
from attnviz.lessons.predict import Question, quiz
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
    "DEFAULT_TEMPERATURES",
    "MASK_MODES",
    "TIE_TOLERANCE",
    "DotProductVariance",
    "PermutationExperiment",
    "Question",
    "RowStats",
    "SaturationCurve",
    "SoftmaxGradient",
    "TemperatureSweep",
    "argmax_limit",
    "build_mask",
    "dot_product_variance",
    "draw_permutation",
    "permutation_experiment",
    "quiz",
    "reattend",
    "row_entropy",
    "saturation_curve",
    "scaling_pair",
    "softmax_gradient_norm",
    "temperature_sweep",
    "uniform_limit",
]
