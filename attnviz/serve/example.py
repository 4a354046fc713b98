"""The example every page draws: ``compute(settings)``, kept once per distinct Settings for every
visitor, with what it costs while it is computed. No Streamlit."""

from attnviz.limits import CACHE_EXAMPLES, HEAVY_BYTES
from attnviz.serve.store import kept
from attnviz.settings import compute


def example_bytes(settings):
    """An upper bound on the bytes of ``compute(settings)``'s arrays (what it counts against
    the cache's budget while it is computed): X and the embeddings (n, d_model), the weights,
    Q, K, V and the output, and five (n, n) steps; float64. 29 MB at the limits (23 held)."""
    s = settings
    n, d_model, d_k, d_v = len(s.tokens), s.d_model, s.d_k, s.d_v
    widths = 2 * n * d_model + d_model * (2 * d_k + d_v) + n * (2 * d_k + 2 * d_v)
    return 8 * (widths + 5 * n * n)


def heavy_example(settings):
    """What computing ``settings`` is, if heavy enough to wait for a heavy slot, else None."""
    return "a max-size example" if example_bytes(settings) >= HEAVY_BYTES else None


@kept(*CACHE_EXAMPLES, estimate=example_bytes, heavy=heavy_example)
def cached_example(settings):
    """compute(settings), once per distinct settings per server, shared by every session.

    Keyed on the small Settings, never on arrays; the result is read-only, so sessions share
    it without copies. An Example at the limits (n = d = 512) holds about 25 MB.
    """
    return compute(settings)
