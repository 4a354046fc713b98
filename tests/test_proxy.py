"""Who the client is behind the proxy (attnviz/serve/proxy.py): X-Forwarded-For is believed
from the proxy that ATTNVIZ_TRUSTED_PROXIES names (loopback by default), from nobody else."""

import pytest

from attnviz.serve.proxy import (
    THIS_MACHINE,
    TRUSTED_PROXIES_VARIABLE,
    client_address,
    trusted_proxies,
)

DEFAULT = trusted_proxies({})


@pytest.mark.parametrize(
    ("peer", "forwarded", "seen"),
    [
        (None, "198.51.100.7", "198.51.100.7"),  # nginx on this host (Streamlit: None)
        ("::1", "2001:db8::5", "2001:db8::5"),
        (None, "203.0.113.9, 198.51.100.7", "198.51.100.7"),  # the proxy's own entry: the last
        (None, None, THIS_MACHINE),  # a lecturer's own laptop
        (None, "127.0.0.1", THIS_MACHINE),
        (None, "not an address", THIS_MACHINE),  # the proxy wrote none: its own address
        ("192.0.2.44", "198.51.100.7", "192.0.2.44"),  # forged by a client: ignored
        ("::ffff:192.0.2.44", None, "192.0.2.44"),
    ],
)
def test_the_header_counts_from_the_trusted_proxy_only(peer, forwarded, seen):
    assert client_address(peer, forwarded, DEFAULT) == seen


def test_the_setting_names_the_proxy():
    assert trusted_proxies({TRUSTED_PROXIES_VARIABLE: "127.0.0.1, ::1"}) == DEFAULT
    elsewhere = trusted_proxies({TRUSTED_PROXIES_VARIABLE: "10.0.0.5, junk"})
    assert client_address("10.0.0.5", "198.51.100.7", elsewhere) == "198.51.100.7"
    # a process on the host itself is no longer the proxy: its header is not believed
    assert client_address(None, "198.51.100.7", elsewhere) == THIS_MACHINE
    nobody = trusted_proxies({TRUSTED_PROXIES_VARIABLE: ""})
    assert client_address("10.0.0.5", "198.51.100.7", nobody) == "10.0.0.5"


def test_the_environment_is_read_when_no_set_is_given(monkeypatch):
    monkeypatch.setenv(TRUSTED_PROXIES_VARIABLE, "10.0.0.5")
    assert client_address("10.0.0.5", "198.51.100.7") == "198.51.100.7"
    assert client_address(None, "198.51.100.7") == THIS_MACHINE
