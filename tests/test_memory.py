"""attnviz.memory: glibc keeps the memory of freed (n, n) matrices for the next call."""

import subprocess
import sys

import pytest

from attnviz import memory

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's malloc settings (Linux)"
)

# In a fresh interpreter: allocate three 16 MiB float32 matrices (the (n, n) steps at
# n = 2048), note how much glibc mapped for them, free them, note how much it kept.
PROBE = """
import ctypes, sys
import numpy as np
if sys.argv[1] == "attnviz":
    import attnviz
class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
before = libc.mallinfo2().hblkhd
matrices = [np.ones((2048, 2048), np.float32) for _ in range(3)]
mapped = libc.mallinfo2().hblkhd - before
del matrices
if sys.argv[2:] == ["trim"]:
    attnviz.memory.release_freed_memory()
print(mapped, libc.mallinfo2().fordblks)
"""


def probe(*args):
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
    )
    mapped, kept = map(int, out.stdout.split())
    return mapped, kept


def test_glibc_takes_the_settings():
    assert memory.keep_large_blocks() is True


def test_freed_matrices_are_kept_for_the_next_call():
    # Without attnviz glibc maps each 16 MiB matrix afresh and unmaps it when freed (the
    # kernel then zeroes new pages on every call); with attnviz imported they come from the
    # heap and stay there, free, for the next call.
    matrices = 3 * 2048 * 2048 * 4
    mapped, kept = probe("plain")
    assert mapped >= matrices and kept < matrices
    mapped, kept = probe("attnviz")
    assert mapped == 0 and kept >= matrices


def test_freed_memory_can_still_be_handed_back():
    # What the real-model page does after a forward pass: the kept memory goes back.
    mapped, kept = probe("attnviz", "trim")
    assert mapped == 0 and kept < 2048 * 2048 * 4
