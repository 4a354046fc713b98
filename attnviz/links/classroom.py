"""The Classroom page's link: ``room=CODE`` (a student's join link) and ``key=…`` (the
lecturer's link, with the room's secret key). Read through the shared readers; no Streamlit.
"""

from attnviz.classroom.room import CODE_PROBLEM, KEY_BYTES, normal_code
from attnviz.links.readers import quoted, raw_value, read_text

PARAMS = ("room", "key")
MAX_KEY_CHARS = 4 * KEY_BYTES  # a key as made is 24 characters; a longer one is no key


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
    """A student's link parameters: {"room": code} (never the key)."""
    return {"room": code}


def lecturer_query(code, key):
    """The lecturer's link parameters: the code and the secret key."""
    return {"room": code, "key": key}
