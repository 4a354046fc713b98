"""How attnviz asks the C library (glibc) to handle the memory of its large matrices.

Two calls, both no-ops where the C library is not glibc:

* ``keep_large_blocks``, once at import of ``attnviz.core``: an (n, n) float32 matrix at
  n = 2048 is 16 MiB. glibc serves a request that large with a fresh ``mmap`` and returns it to
  the system when it is freed, so each new matrix starts as untouched pages that the kernel
  must zero on first write: about a quarter of ``self_attention``'s time at n = 2048 (measured
  with ``benchmarks/core.py``). glibc raises its thresholds by itself after the first large
  free, up to 32 MiB for ``mmap`` and 64 MiB of free memory kept at the top of the heap, but
  three 16 MiB matrices freed together are still over that and are handed back every time.
  Setting those same maxima from the start lets the next call reuse the memory (PyTorch keeps
  its own cache of blocks for the same reason).
* ``release_freed_memory``: hand memory freed by this thread back to the system
  (``malloc_trim``), after a step that frees a lot (a real model's forward pass).
"""

import ctypes

M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # bytes: smaller blocks come from the heap (glibc's own maximum)
TRIM_THRESHOLD = 64 << 20  # bytes of free memory kept at the top of a heap (glibc's own maximum)


def _libc_function(name):
    """The process's own C library function ``name``, or None if it has none."""
    try:
        return getattr(ctypes.CDLL(None), name, None)
    except OSError:  # no C library to open (not a POSIX system)
        return None


def keep_large_blocks():
    """Let glibc reuse freed blocks of up to 32 MiB instead of mapping fresh pages each time.

    Returns True if the C library took both settings.
    """
    mallopt = _libc_function("mallopt")
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


def release_freed_memory():
    """Hand memory freed by this thread back to the system (glibc's ``malloc_trim``).

    Each script thread allocates from its own glibc arena, which keeps what a run freed: a
    forward pass at 128 pieces frees about 50 MB of temporaries, which stayed counted against
    the server once per thread. A no-op where the C library has no ``malloc_trim``.
    """
    trim = _libc_function("malloc_trim")
    if trim is not None:
        trim(0)
