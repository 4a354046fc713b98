"""The browser's id, set by the server: an ASGI middleware of the App.

A request without a valid ``attnviz_browser`` cookie gets a new id (``links.classroom.new_sid``,
96 random bits) in a ``Set-Cookie`` of its response: HttpOnly (no script of a page can read or
write it), SameSite=Lax, Secure when the page was asked for over https, kept for a term. The id
is also put into the request's own Cookie header, so the request that mints it (the first page
load, or a phone's first call to an /api route) already has it: the first session of a browser
is the same student as every later one, and tabs opened at once share it once one response has
come back.
"""

from http.cookies import SimpleCookie

from attnviz.links.classroom import BROWSER_COOKIE, COOKIE_DAYS, SID_PATTERN, new_sid


def cookie_value(headers, name):
    """The value of cookie ``name`` in an ASGI scope's ``headers`` (a list of byte pairs), or
    None."""
    for key, value in headers:
        if key == b"cookie":
            jar = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header: as if it had none of ours
                continue
            if name in jar:
                return jar[name].value
    return None


def is_https(scope):
    """Whether the browser asked over https: the scheme, or the X-Forwarded-Proto that the
    proxy in front writes (deploy/nginx.conf)."""
    if scope.get("scheme") in ("https", "wss"):
        return True
    return any(k == b"x-forwarded-proto" and v == b"https" for k, v in scope.get("headers", ()))


def set_cookie_header(name, value, *, max_age, https, same_site="Lax"):
    """A ``Set-Cookie`` header's value: Path=/, HttpOnly, SameSite, Secure over https."""
    secure = "; Secure" if https else ""
    return (
        f"{name}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite={same_site}{secure}"
    ).encode("latin-1")


class BrowserCookie:
    """Pure ASGI middleware (a websocket passes untouched: its handshake carries the cookie
    that an earlier HTTP response set)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        current = cookie_value(scope.get("headers", ()), BROWSER_COOKIE)
        if current is not None and SID_PATTERN.fullmatch(current):
            await self.app(scope, receive, send)
            return
        minted = new_sid()
        scope = dict(scope)
        scope["headers"] = [
            *(h for h in scope.get("headers", ()) if h[0] != b"cookie"),
            (b"cookie", _with_cookie(scope.get("headers", ()), minted)),
        ]
        header = set_cookie_header(
            BROWSER_COOKIE, minted, max_age=COOKIE_DAYS * 86400, https=is_https(scope)
        )

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", ()), (b"set-cookie", header)]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _with_cookie(headers, minted):
    """The request's Cookie header with ``attnviz_browser=minted`` in place of any bad one."""
    others = []
    for key, value in headers:
        if key == b"cookie":
            others += [
                part.strip()
                for part in value.decode("latin-1").split(";")
                if part.strip() and not part.strip().startswith(BROWSER_COOKIE + "=")
            ]
    return "; ".join([*others, f"{BROWSER_COOKIE}={minted}"]).encode("latin-1")
