"""Memory for attnviz's large matrices: a small cache of freed (n, n) blocks, and malloc_trim.

* ``empty(shape, dtype)`` is ``np.empty`` that reuses the memory of a large matrix attnviz made
  earlier and nobody holds any more. An (n, n) float32 matrix at n = 2048 is 16 MiB; glibc maps
  a request that large afresh and unmaps it when freed, so every new matrix starts as untouched
  pages that the kernel must zero on first write: about a quarter of ``self_attention``'s time
  at n = 2048 when it is called again and again (measured with ``benchmarks/core.py``).
  PyTorch keeps such a cache for the same reason. The cache here is bounded
  (``MAX_KEPT_BYTES`` of free blocks in the whole process) and only holds blocks of at least
  ``MIN_POOLED_BYTES``: below that glibc already reuses freed memory, and the app's own sizes
  (n <= 512) never reach it. Over the bound, the blocks freed longest ago are dropped. A block
  goes back to the cache only when every array viewing it is gone (a ``weakref.finalize`` on
  the ctypes object the arrays are made from). Where ``mmap`` has no private anonymous maps
  (Windows), ``empty`` is plain ``np.empty``.
* ``release_freed_memory``: empty that cache and ask glibc to hand memory back to the system
  (``malloc_trim``), after a step that frees a lot (a real model's forward pass).

An earlier version set glibc's own thresholds instead (``mallopt``): simpler, but a review
showed every thread's arena then kept up to 64 MiB for good, out of ``malloc_trim``'s reach.
"""

import contextlib
import ctypes
import mmap
import os
import threading
import weakref

import numpy as np

MIN_POOLED_BYTES = 4 << 20  # smaller matrices come from np.empty as usual
MAX_KEPT_BYTES = 64 << 20  # free blocks kept for reuse, in all: three 16 MiB matrices fit
_POOLING = hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MAP_ANONYMOUS")

_lock = threading.RLock()  # RLock: a block can be released by garbage collection inside empty()
_free = []  # mmap blocks nobody views any more, the most recently freed last
_kept = 0  # bytes in _free


def _after_fork_in_child():
    global _lock
    _lock = threading.RLock()  # another thread may have held it at the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _release(block):
    """Called when the last array viewing ``block`` is gone: keep it, dropping the blocks freed
    longest ago if the cache would hold more than MAX_KEPT_BYTES."""
    global _kept
    with _lock:
        _free.append(block)
        _kept += len(block)
        while _kept > MAX_KEPT_BYTES:
            _kept -= len(_free.pop(0))  # unmapped once dropped


def _new_block(nbytes):
    """``nbytes`` of fresh memory mapped for this block alone (``mmap``), in huge pages where
    the system allows: unmapped, so handed back to the system, as soon as the block is dropped.
    (Memory from glibc would stay in the arena of the thread that made it.)"""
    # private: the default (MAP_SHARED) is shared memory, whose pages fault in about 2x slower
    block = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        with contextlib.suppress(OSError):  # not supported here: ordinary pages
            block.madvise(mmap.MADV_HUGEPAGE)
    return block


def empty(shape, dtype):
    """An uninitialised array of ``shape`` and ``dtype``, like ``np.empty``, C order.

    From the cache when a block of exactly that many bytes is free, else new memory.
    """
    global _kept
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes < MIN_POOLED_BYTES or not _POOLING:
        return np.empty(shape, dtype)
    with _lock:  # the most recently freed block of this size (a dozen blocks at most)
        k = next((k for k in range(len(_free) - 1, -1, -1) if len(_free[k]) == nbytes), None)
        block = None if k is None else _free.pop(k)
        if block is not None:
            _kept -= nbytes
    if block is None:
        block = _new_block(nbytes)
    view = (ctypes.c_char * nbytes).from_buffer(block)  # what every array made here points to
    weakref.finalize(view, _release, block)
    return np.frombuffer(view, dtype).reshape(shape)


def kept_bytes():
    """Bytes of free blocks the cache holds now."""
    return _kept


def release_freed_memory():
    """Empty the cache and hand memory freed by the process back to the system.

    ``malloc_trim`` returns free pages of every glibc arena (each script thread allocates from
    its own): a forward pass at 128 pieces frees about 50 MB of temporaries, which stayed
    counted against the server otherwise. That step is skipped where the C library (not glibc)
    has no ``malloc_trim``.
    """
    global _kept
    with _lock:
        _free.clear()
        _kept = 0
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:  # no C library to open (not a POSIX system)
        trim = None
    if trim is not None:
        trim(0)
