"""The lessons' experiments: why divide by sqrt(d_k), masks and temperature, positions, a quiz.

numpy only (no Streamlit, no Plotly): the lesson pages call these and draw what they return.
Every function takes results (an AttentionResult, or an Example for the positions) or plain
arrays, never the Settings: the page's ui module passes the cached result. Each gets every step of
attention from the core and is deterministic from its seed.

    from attnviz import compute, lessons
    example = compute(settings); r = example.result
    lessons.dot_product_variance()                # Var(q . k) = d_k, measured
    lessons.saturation_curve(r, settings.seed)    # rows go one-hot without scaling as d_k grows
    lessons.temperature_sweep(r)                  # T -> 0: argmax, T -> infinity: uniform
    lessons.mask_effect(plain, masked, mask)      # masked rows are the plain ones, rescaled
    lessons.permutation_experiment(off, on)       # no positions: shuffled in, shuffled out
    lessons.quiz(r, example.labels, P=example.P)  # predict, then reveal: rules, not look-ups
"""

from attnviz.lessons.common import TIE_TOLERANCE, reattend, row_entropy
from attnviz.lessons.masks import (
    DEFAULT_TEMPERATURES,
    MASK_MODES,
    MaskEffect,
    TemperatureEffect,
    TemperatureSweep,
    argmax_limit,
    build_mask,
    mask_effect,
    temperature_effect,
    temperature_sweep,
    uniform_limit,
)
from attnviz.lessons.positions import (
    PermutationExperiment,
    RotaryScores,
    draw_permutation,
    permutation_experiment,
    rotary_scores,
    rotate,
)
from attnviz.lessons.predict import KINDS, MAX_QUESTIONS, Bars, Question, Table, quiz
from attnviz.lessons.scaling import (
    DEFAULT_D_KS,
    DEFAULT_FACTORS,
    NEARLY_ONE_HOT,
    DotProductVariance,
    RowStats,
    SaturationCurve,
    ScalingContrast,
    SoftmaxGradient,
    dot_product_variance,
    saturation_curve,
    scaling_contrast,
    scaling_pair,
    softmax_gradient_norm,
)

__all__ = [
    "DEFAULT_D_KS",
    "DEFAULT_FACTORS",
    "DEFAULT_TEMPERATURES",
    "KINDS",
    "MASK_MODES",
    "MAX_QUESTIONS",
    "NEARLY_ONE_HOT",
    "TIE_TOLERANCE",
    "Bars",
    "DotProductVariance",
    "MaskEffect",
    "PermutationExperiment",
    "Question",
    "RotaryScores",
    "RowStats",
    "SaturationCurve",
    "ScalingContrast",
    "SoftmaxGradient",
    "Table",
    "TemperatureEffect",
    "TemperatureSweep",
    "argmax_limit",
    "build_mask",
    "dot_product_variance",
    "draw_permutation",
    "mask_effect",
    "permutation_experiment",
    "quiz",
    "reattend",
    "rotary_scores",
    "rotate",
    "row_entropy",
    "saturation_curve",
    "scaling_contrast",
    "scaling_pair",
    "softmax_gradient_norm",
    "temperature_effect",
    "temperature_sweep",
    "uniform_limit",
]
