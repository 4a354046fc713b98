"""pytest fixtures; the helpers tests import are in tests/helpers.py."""

import pytest

from tests.helpers import ROOT, need_model_files


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def model_files():
    """The real model's files: skipped (failed under CI) without them, with how to install them."""
    need_model_files()
