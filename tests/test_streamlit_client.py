"""tools/streamlit_client.SyncTab: a tab that cannot connect raises what went wrong and leaves
no thread or event loop behind (its runs, waits and closing are the browser tests' phones:
tests/browser/test_classroom.py, test_classroom_peer.py, test_replicas.py)."""

import socket

import pytest

from tools.streamlit_client import SyncTab


def test_a_tab_that_cannot_connect_stops_its_loop():
    with socket.socket() as probe:  # a port that nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tab = SyncTab(f"http://127.0.0.1:{port}", "phone", "room=K7QX4M", timeout=10)
    with pytest.raises(OSError), tab:
        pytest.fail("connected to a port nothing listens on")
    assert not tab.thread.is_alive() and tab.loop.is_closed()
