"""The lecturer's own credential: a cookie that names one room and holds its lecturer key, set
by the server (``attnviz/web/lecturer.py``), never by a page's script. No Streamlit.

    LECTURER_COOKIE                 its name; its value ``credential_value(code, key)``:
                                    "CODE.KEY" (a room code and a key are URL-safe, no dot)
    read_credential(text)           -> (code, key), or None when the text is no credential
    seconds_left(room, now)         -> the cookie's Max-Age: until the room's end, at most
                                    ROOM_LIFETIME_SECONDS

HttpOnly (no script of a page reads it), SameSite=Strict (no other site's link or form sends
it), Secure over https, Path=/. It expires with its room and is cleared when the lecturer
closes the room or leaves the computer. The browser's id (``attnviz_browser``) is a student's
name and no credential: whoever copies it holds no controls. The key in the cookie is the
room's current key: a lecturer link used in another browser gives the room a new key, and the
cookie of this one then opens nothing.

Where the App's routes are not served (AppTest, a host that runs app.py as a plain script),
no cookie can be set by the server, and the page falls back to the store's record of what the
browser's id holds (classroom/lecturers.py): ``ROUTES_SERVED`` says which. The App's lifespan
sets it; nothing else does.
"""

import re
import threading

from attnviz.classroom.room import normal_code
from attnviz.limits import ROOM_LIFETIME_SECONDS

LECTURER_COOKIE = "attnviz_lecturer"
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,96}")
ROUTES_SERVED = threading.Event()  # set by the App's lifespan: /api/lecturer answers


def credential_value(code, key):
    """The cookie's value for room ``code`` and its lecturer ``key``."""
    return f"{code}.{key}"


def read_credential(text):
    """(code, key) from the cookie's value ``text``, or None when it is no credential (absent,
    damaged, or a bare room code as the page's script wrote it before the App)."""
    if not isinstance(text, str) or "." not in text:
        return None
    code, key = text.split(".", 1)
    if normal_code(code) != code or not KEY_PATTERN.fullmatch(key):
        return None
    return code, key


def seconds_left(room, now):
    """The cookie's Max-Age for ``room`` at ``now`` (epoch seconds): until the room ends, whole
    seconds, 0 once it has ended."""
    return int(max(0.0, min(room.expires - now, ROOM_LIFETIME_SECONDS)))
