"""pytest fixtures; the helpers tests import are in tests/helpers.py."""

import pytest

from tests.helpers import ROOT


@pytest.fixture
def root():
    return ROOT
