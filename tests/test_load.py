"""Concurrent sessions on one server never see each other's tokens or numbers (small version of
benchmarks/load.py, which runs 20 sessions and prints the memory figures)."""

import pytest

from benchmarks.load import run

pytestmark = pytest.mark.browser


def test_sessions_on_one_server_stay_apart():
    per_session_mb = run(sessions=3, rounds=1)  # asserts every session's tokens and numbers
    assert per_session_mb < 50
