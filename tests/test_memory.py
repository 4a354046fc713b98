"""attnviz.memory: large matrices reuse the memory of earlier ones nobody holds any more."""

import gc
import subprocess
import sys
import threading

import numpy as np
import pytest

import attnviz
from attnviz import memory

BIG = (1024, 1024)  # float32: 4 MiB, the smallest size the cache takes


@pytest.fixture(autouse=True)
def empty_cache():
    gc.collect()  # blocks of earlier tests' garbage return now, not in the middle of this one
    memory.release_freed_memory()
    yield
    gc.collect()
    memory.release_freed_memory()


def test_empty_is_np_empty_in_shape_dtype_and_order():
    for shape, dtype in [(BIG, np.float32), ((700, 800), np.float64), ((3, 4), np.float32)]:
        a = memory.empty(shape, dtype)
        assert a.shape == shape and a.dtype == dtype
        assert a.flags.c_contiguous and a.flags.writeable
        a[...] = 1.5  # every byte is usable
        assert (a == 1.5).all()
    small = memory.empty((3, 4), np.float32)
    assert small.flags.owndata  # below MIN_POOLED_BYTES: plain np.empty


def test_a_freed_block_is_reused_for_the_next_matrix_of_its_size():
    a = memory.empty(BIG, np.float32)
    address = a.ctypes.data
    del a
    gc.collect()
    assert memory.kept_bytes() == 4 << 20
    b = memory.empty(BIG, np.float32)
    assert b.ctypes.data == address and memory.kept_bytes() == 0
    c = memory.empty((512, 2048), np.float32)  # same bytes, another shape: same block size
    assert c.ctypes.data != address


def test_a_block_is_not_reused_while_any_view_of_it_lives():
    a = memory.empty(BIG, np.float32)
    a[...] = 7.0
    frozen = a[::2].view()  # what AttentionResult keeps: a read-only view
    frozen.flags.writeable = False
    del a
    gc.collect()
    assert memory.kept_bytes() == 0
    b = memory.empty(BIG, np.float32)
    b[...] = -1.0
    assert (frozen == 7.0).all()  # untouched by the new matrix
    del frozen
    gc.collect()
    assert memory.kept_bytes() == 4 << 20


def test_the_cache_keeps_at_most_max_kept_bytes():
    blocks = [memory.empty(BIG, np.float32) for _ in range(memory.MAX_KEPT_BYTES // (4 << 20) + 3)]
    del blocks
    gc.collect()
    assert memory.kept_bytes() == memory.MAX_KEPT_BYTES


def test_a_full_cache_drops_the_blocks_freed_longest_ago():
    # A script that moves on to another size must find its own blocks, not a cache full of
    # the old size's.
    old = [memory.empty((2048, 1024), np.float32) for _ in range(memory.MAX_KEPT_BYTES >> 23)]
    del old  # 8 MiB blocks, enough to fill the cache
    gc.collect()
    assert memory.kept_bytes() == memory.MAX_KEPT_BYTES
    a = memory.empty(BIG, np.float32)  # 4 MiB: none kept, a new block
    del a  # kept, an 8 MiB block dropped for it
    gc.collect()
    kept = memory.kept_bytes()
    assert kept <= memory.MAX_KEPT_BYTES
    b = memory.empty(BIG, np.float32)  # taken from the cache
    assert memory.kept_bytes() == kept - b.nbytes


def test_release_empties_the_cache():
    a = memory.empty(BIG, np.float32)
    del a
    gc.collect()
    assert memory.kept_bytes() > 0
    memory.release_freed_memory()
    assert memory.kept_bytes() == 0


def test_results_never_share_memory_and_a_dropped_result_is_reused():
    rng = np.random.default_rng(0)
    X, W = rng.standard_normal((1024, 8)).astype(np.float32), np.eye(8, dtype=np.float32)
    r1 = attnviz.self_attention(X, W, W, W)
    r2 = attnviz.self_attention(X, W, W, W)
    steps = ("scores", "scaled_scores", "attention")
    assert not any(np.shares_memory(getattr(r1, a), getattr(r2, b)) for a in steps for b in steps)
    expected = np.array(r1.attention)
    old = {r1.scores.ctypes.data, r1.scaled_scores.ctypes.data, r1.attention.ctypes.data}
    del r1
    gc.collect()
    r3 = attnviz.self_attention(X, W, W, W)
    assert {r3.scores.ctypes.data, r3.scaled_scores.ctypes.data, r3.attention.ctypes.data} == old
    np.testing.assert_array_equal(r3.attention, expected)  # reused memory, same numbers
    np.testing.assert_array_equal(r2.attention, expected)


def test_threads_allocating_at_once_never_get_the_same_block():
    errors = []

    def session(k):
        for _ in range(20):
            a = memory.empty(BIG, np.float32)
            a[...] = k
            b = memory.empty(BIG, np.float32)  # while a lives: another block
            b[...] = -k
            if not (a == k).all() or np.shares_memory(a, b):
                errors.append(k)
            del a, b

    threads = [threading.Thread(target=session, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert memory.kept_bytes() <= memory.MAX_KEPT_BYTES


RSS_PROBE = """
import gc
import numpy as np
from attnviz import memory

def rss_mib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS"))

start = rss_mib()
matrices = [memory.empty((2048, 2048), np.float32) for _ in range(3)]
for m in matrices:
    m[...] = 1.0  # touch every page
del matrices, m
gc.collect()
kept = rss_mib() - start
memory.release_freed_memory()
print(kept, rss_mib() - start)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_released_blocks_go_back_to_the_system():
    # Kept blocks stay resident (48 MiB here); once released they are unmapped, whichever
    # thread made them (memory from glibc would stay in that thread's arena).
    out = subprocess.run(
        [sys.executable, "-c", RSS_PROBE], capture_output=True, text=True, check=True
    )
    kept, after = map(int, out.stdout.split())
    assert kept >= 45 and after <= 5


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_blocks_are_private_memory_not_shared_memory():
    # mmap's default (MAP_SHARED) is shared memory, whose pages fault in about twice as slowly
    a = memory.empty(BIG, np.float32)
    address = a.ctypes.data
    with open("/proc/self/maps") as maps:
        for line in maps:
            start, stop = (int(x, 16) for x in line.split()[0].split("-"))
            if start <= address < stop:
                break
    assert line.split()[1] == "rw-p"
