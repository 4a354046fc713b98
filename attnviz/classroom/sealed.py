"""A room's record in Redis, signed: the replicas share a secret (``ATTNVIZ_SECRET``) and refuse
a record that another party wrote or changed (a room's key digest, its example, its phase). No
Streamlit, no Redis.

    seal(secret, text)     -> "<signature>.<text>" (HMAC-SHA256 of the text, 64 hex digits)
    unseal(secret, value)  -> the text, or None when the signature is missing or not the secret's
"""

import hashlib
import hmac

from attnviz.classroom.room import LESSONS_UNAFFECTED

SECRET_VARIABLE = "ATTNVIZ_SECRET"
MIN_SECRET_CHARS = 16  # `openssl rand -hex 32` gives 64; a word or a placeholder is no secret
SIGNATURE_CHARS = 64


def secret_problem(secret):
    """A sentence when ``secret`` (text, or None) cannot sign, else None."""
    if not secret or len(secret) < MIN_SECRET_CHARS or "CHANGE-ME" in secret:
        return (
            f"{SECRET_VARIABLE} is not set to a secret of at least {MIN_SECRET_CHARS} "
            "characters (every replica needs the same one: `openssl rand -hex 32`, "
            f"deploy/README.md), so the classroom's shared store is not used. {LESSONS_UNAFFECTED}"
        )
    return None


def _signature(secret, text):
    return hmac.new(secret.encode(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def seal(secret, text):
    """``text`` with its signature in front."""
    return f"{_signature(secret, text)}.{text}"


def unseal(secret, value):
    """The text of a sealed ``value`` (str) when its signature is ``secret``'s, else None."""
    signature, dot, text = str(value).partition(".")
    if not dot or len(signature) != SIGNATURE_CHARS:
        return None
    return text if hmac.compare_digest(signature, _signature(secret, text)) else None
