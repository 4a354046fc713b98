"""attnviz.links.loopback: a join link that no phone can open is said."""

import pytest

from attnviz.links.loopback import is_loopback, loopback_warning


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8711/Classroom?room=WJDKBW", True),
        ("http://localhost:8501/Classroom", True),
        ("http://[::1]:8501/Classroom", True),
        ("http://0.0.0.0:8501/Classroom", True),
        ("http://192.168.1.20:8501/Classroom", False),
        ("https://attnviz.example.edu/Classroom", False),
    ],
)
def test_loopback_hosts_are_found(url, loopback):
    assert is_loopback(url) is loopback
    warning = loopback_warning(url, "ATTNVIZ_PUBLIC_URL")
    assert (warning is not None) is loopback
    if loopback:
        assert "ATTNVIZ_PUBLIC_URL" in warning and "reaches itself" in warning
