"""What every frozen result shares: read-only arrays, and the sizes read off Q and V.

``AttentionResult`` (core), ``TiledResult`` (tiled) and the lessons' results are frozen
dataclasses; ``freeze_arrays`` makes their numpy fields read-only views, so a cached result can
be shared by every session without copies.
"""

import numpy as np


def freeze_arrays(obj):
    """Make every numpy array field of the frozen dataclass ``obj`` a read-only view.

    Views, so the caller's own arrays (passed in as X or weights) stay writeable.
    """
    for name, value in vars(obj).items():
        if isinstance(value, np.ndarray):
            view = value.view()
            view.flags.writeable = False
            object.__setattr__(obj, name, view)


class AttentionSizes:
    """n, d_k, d_v and the scale factor of a result with fields Q (n, d_k), V (n, d_v), scale."""

    @property
    def n(self):
        return self.Q.shape[0]

    @property
    def d_k(self):
        return self.Q.shape[1]

    @property
    def d_v(self):
        return self.V.shape[1]

    @property
    def scale_factor(self):
        """What the scores are divided by: sqrt(d_k) when scaling is on, else 1."""
        return float(np.sqrt(self.d_k)) if self.scale else 1.0
