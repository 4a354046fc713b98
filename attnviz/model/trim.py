"""Hand memory that a real model's forward pass freed back to the system (glibc's malloc_trim).

A forward pass at MAX_MODEL_TOKENS word pieces frees about 50 MB of temporaries; glibc keeps
freed memory in the arena of the thread that used it, so the server's memory would stay that
much higher after every new sentence. Called lazily, after a forward pass, never at import.
"""

import ctypes


def release_freed_memory():
    """Ask the C library to return free pages of every arena to the system.

    Does nothing where the C library (not glibc) has no ``malloc_trim``.
    """
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:  # no C library to open (not a POSIX system)
        trim = None
    if trim is not None:
        trim(0)
