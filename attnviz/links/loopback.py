"""Whether a join link can reach a phone: a loopback address (localhost, 127.0.0.1, ::1) names
the lecturer's own machine, so a phone that opens it reaches itself. No Streamlit."""

import ipaddress
from urllib.parse import urlsplit


def is_loopback(url):
    """Whether ``url``'s host is the machine itself (localhost, 127.x.x.x, ::1, 0.0.0.0)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def loopback_warning(url, variable):
    """A sentence for the lecturer when ``url``, the join link, is a loopback address (None
    otherwise); ``variable`` is the environment variable that sets the address phones see."""
    if not is_loopback(url):
        return None
    host = urlsplit(url).hostname
    return (
        f"This join link uses {host}, this computer's own address: a phone that opens it or "
        "scans the code reaches itself, not this app. Open this page through the address "
        f"students' phones can reach (the machine's name or network address), or start the app "
        f"with {variable} set to it."
    )
