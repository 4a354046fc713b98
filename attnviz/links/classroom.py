"""The Classroom page's link: ``room=CODE`` (a student's join link), ``joined=1`` (added to a
student's address once joined, so that a room gone since is told apart from a mistyped code)
and ``key=…`` (the lecturer's link, with the room's secret key, which never stays in the
address and opens the room once: classroom/lecturers.py). Who a student is is no part of any
address: it is the browser's id (ui/visitor.py), so a pasted link makes each browser that opens
it a student of its own. Read through the shared readers; no Streamlit.
"""

import re
import secrets

from attnviz.classroom.room import CODE_PROBLEM, KEY_BYTES, normal_code
from attnviz.links.readers import quoted, raw_value, read_text

PARAMS = ("room", "key", "joined")
MAX_KEY_CHARS = 4 * KEY_BYTES  # a key as made is 24 characters; a longer one is no key
SID_BYTES = 12  # a browser's random id: 16 URL-safe characters, 96 random bits
SID_PATTERN = re.compile(r"[A-Za-z0-9_-]{16}")
BROWSER_COOKIE = "attnviz_browser"  # the cookie that holds a browser's id (web/cookies.py)
COOKIE_DAYS = 120  # a term: a student's phone is the same student all term


def new_sid():
    """A browser's random id (16 URL-safe characters): no names, no accounts."""
    return secrets.token_urlsafe(SID_BYTES)


def read_joined(query):
    """(whether ``query`` says its browser had joined the room, ``joined=1``; warnings)."""
    raw, warnings = raw_value(query, "joined")
    return raw == "1", warnings


def read_room(query):
    """(the room code or None, the lecturer's key or None, warnings) from ``query``.

    A code is written as stored (capitals, no spaces); one that cannot be a code gives None and
    a warning that says what a code is. The key is only read beside a code."""
    raw, warnings = raw_value(query, "room")
    if raw is None:
        return None, None, warnings
    code = normal_code(raw)
    if code is None:
        warnings.append(f"`room={quoted(raw)}` in the link is not a room code. {CODE_PROBLEM}")
        return None, None, warnings
    key, key_warnings = read_text(query, "key", max_chars=MAX_KEY_CHARS, default=None)
    return code, key, warnings + key_warnings


def join_query(code):
    """A student's link parameters: {"room": code} (never the key, never an id: the QR code
    makes every phone a student of its own)."""
    return {"room": code}


def student_query(code):
    """A joined student's address: the room, and that they joined it."""
    return {"room": code, "joined": "1"}


def lecturer_query(code, key):
    """The lecturer's link parameters: the code and the secret key."""
    return {"room": code, "key": key}
