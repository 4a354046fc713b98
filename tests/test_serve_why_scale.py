"""Why scale's numbers (attnviz/serve/why_scale.py), without a page."""

from dataclasses import replace

import numpy as np

from attnviz import lessons
from attnviz.serve.why_scale import sentence_of
from attnviz.settings import Settings
from tests.helpers import result_of

S0 = Settings()


def test_the_sidebars_d_k_and_scaling_change_no_experiment():
    # The page keeps its experiments per sentence (sentence_of): that is right only if the
    # sidebar's d_k and scaling change none of them. Checked on the computations.
    base = replace(S0, text="one two three four five", mask="causal", temperature=2.0)
    for other in (replace(base, d_k=7), replace(base, scale=False, d_k=1)):
        assert sentence_of(other) == sentence_of(base)
        a, b = result_of(base), result_of(other)
        curve_a, curve_b = lessons.saturation_curve(a, 5), lessons.saturation_curve(b, 5)
        for stats in ("sentence_scaled", "sentence_unscaled"):
            np.testing.assert_array_equal(
                getattr(curve_a, stats).max_weight, getattr(curve_b, stats).max_weight
            )
        for x, y in zip(
            lessons.scaling_pair(a, 5, 16), lessons.scaling_pair(b, 5, 16), strict=True
        ):
            np.testing.assert_array_equal(x.attention, y.attention)
    assert sentence_of(replace(base, d_v=2)) != sentence_of(base)  # d_v sizes the pair's V
