"""Who is asking: this browser's id and the client's address.

    browser_id()      a random id kept in this browser's cookie BROWSER_COOKIE (16 URL-safe
                      characters, 96 random bits). Every tab of a browser, a reload, a deck's
                      next slide and a reconnect to another replica send it, so the Classroom
                      counts one browser as one student. A link never carries it: a pasted link
                      makes whoever opens it a student of its own.
    client_address()  the client's address: the TCP peer's, or, when the peer is the proxy
                      that ATTNVIZ_TRUSTED_PROXIES names (loopback by default: nginx in front,
                      as deploy/ sets it up), the X-Forwarded-For entry that it writes; "this
                      machine" when that is loopback (a lecturer's own laptop). The App's HTTP
                      routes use the same function (``attnviz.serve.proxy``).
    visitor_key()     the key of per-visitor limits on heavy work: the browser's id.

Served as ``streamlit run app.py`` serves it (the App in app.py), the server sets the cookie
on the browser's first response, HttpOnly (``attnviz.web.cookies``), so the first session
already has it and no page writes a cookie. Where the script runs without the App (AppTest, a
host that ignores it) there is no such cookie at first: a session then has an id of its own,
and ``keep_browser_cookie`` writes it to the browser by a script on the Classroom page (not
HttpOnly then; SameSite=Lax, Secure over https), as before the App.

The cookie holds no secret of a room and no controls: under the App the lecturer's controls are
a cookie of their own (classroom/credential.py); without it, the store's record of what the
browser's id holds (``RoomStore.held``), which it knows only after the lecturer opened the room
or used the lecturer link in this browser.
"""

import json

import streamlit as st

from attnviz.links.classroom import BROWSER_COOKIE, COOKIE_DAYS, SID_PATTERN, new_sid
from attnviz.serve import proxy

MINTED_ID = "attnviz.visitor.browser"  # a session's id while its browser has no cookie yet
_WRITTEN = "attnviz.visitor.written"  # the script that writes the cookie was drawn


def _cookie_id():
    """The browser id in the request's cookie, or None when absent or not an id of this app."""
    value = st.context.cookies.get(BROWSER_COOKIE)
    return value if isinstance(value, str) and SID_PATTERN.fullmatch(value) else None


def browser_id():
    """This browser's id: its cookie's, else one made for this session (and written to the
    browser by ``keep_browser_cookie``)."""
    return _cookie_id() or st.session_state.setdefault(MINTED_ID, new_sid())


def keep_browser_cookie():
    """Write this session's new browser id to the browser's cookie, once per session; nothing
    when the browser sent one (always, when the App serves the page: it set the cookie on the
    first response). Called where the id matters (the Classroom page)."""
    if _cookie_id() is not None or st.session_state.get(_WRITTEN):
        return
    st.session_state[_WRITTEN] = True
    cookie = json.dumps(
        f"{BROWSER_COOKIE}={browser_id()}; path=/; max-age={COOKIE_DAYS * 86400}; SameSite=Lax"
    )
    st.html(
        "<script>document.cookie = "
        f"{cookie} + (location.protocol === 'https:' ? '; Secure' : '');</script>",
        unsafe_allow_javascript=True,
    )


def client_address():
    """The client's address (text): see the module's docstring."""
    peer = _text(st.context.ip_address)  # None for a loopback peer
    return proxy.client_address(peer, _text(st.context.headers.get("X-Forwarded-For")))


def _text(value):
    """``value`` when it is text, else "" (no request: a test's script run)."""
    return value if isinstance(value, str) else ""


def visitor_key():
    """Who is asking, for per-visitor limits on heavy work: ``b:<browser id>``. A browser's
    tabs share it; a client that keeps no cookie is a visitor per session, and the gate's
    slots bound all of them together."""
    return f"b:{browser_id()}"
