"""Who the client is, behind the proxy: one function for the pages (``ui/visitor.py``) and the
App's HTTP routes (``attnviz/web``). No Streamlit.

    client_address(peer, forwarded_for)  the client's address as text: the X-Forwarded-For's
                                         last entry when the TCP ``peer`` is a proxy that
                                         TRUSTED_PROXIES_VARIABLE names, else the peer itself;
                                         "this machine" when that address is loopback (a
                                         lecturer's own laptop)

X-Forwarded-For is a header any client can write. Only the proxy's own entry can be believed:
nginx appends the address it saw (``$proxy_add_x_forwarded_for``, deploy/nginx.conf), so the
last entry is nginx's, and only when the request came from nginx. The setting names the proxy:
ATTNVIZ_TRUSTED_PROXIES, addresses separated by commas, loopback by default (127.0.0.1 and ::1:
nginx on the same host, as deploy/ sets it up). A header sent by anyone else is ignored. On the
host itself, whoever can reach a replica's loopback port can still write the header: the
replicas listen on loopback only (deploy/attnviz@.service), so that is the host's own users.
"""

import ipaddress
import os

TRUSTED_PROXIES_VARIABLE = "ATTNVIZ_TRUSTED_PROXIES"
DEFAULT_TRUSTED_PROXIES = "127.0.0.1,::1"  # nginx on the same host (deploy/)
THIS_MACHINE = "this machine"


def _ip(text):
    """``text`` as an ipaddress address (an IPv4-mapped IPv6 address as IPv4), or None."""
    try:
        address = ipaddress.ip_address(str(text).strip())
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def trusted_proxies(environ=None):
    """The proxies whose X-Forwarded-For is believed: a frozenset of addresses, from
    TRUSTED_PROXIES_VARIABLE in ``environ`` (os.environ) or the default; entries that are no
    address are ignored (an empty setting trusts no proxy)."""
    environ = os.environ if environ is None else environ
    text = environ.get(TRUSTED_PROXIES_VARIABLE, DEFAULT_TRUSTED_PROXIES)
    return frozenset(ip for part in text.split(",") if (ip := _ip(part)) is not None)


def client_address(peer, forwarded_for, trusted=None):
    """The client's address (text), see the module's docstring. ``peer``: the TCP peer's
    address (None or "" for loopback, as Streamlit's ``st.context.ip_address`` says it);
    ``forwarded_for``: the X-Forwarded-For header's text, or None; ``trusted``: the proxies
    believed (``trusted_proxies()`` when None)."""
    trusted = trusted_proxies() if trusted is None else trusted
    peer_ip = _ip(peer or "127.0.0.1")
    address = peer_ip
    if peer_ip in trusted and isinstance(forwarded_for, str) and forwarded_for.strip():
        address = _ip(forwarded_for.split(",")[-1])  # the proxy's own entry
    if address is None:  # the proxy wrote no address: the proxy's own is all that is known
        address = peer_ip
    if address is None:  # pragma: no cover  (a peer that is no address: not from a socket)
        return str(peer)[:64]
    return THIS_MACHINE if address.is_loopback else str(address)
