"""attnviz.parallel: blocks shared among threads, OpenBLAS kept to one thread meanwhile."""

import os
import sys
import threading
import time

import numpy as np
import pytest

import attnviz
from attnviz import parallel

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="finds OpenBLAS through /proc/self/maps"
)


@pytest.fixture
def two_workers(monkeypatch):
    """Two threads for every call, however small (as on a 2-core machine at large n)."""
    monkeypatch.setattr(parallel, "MAX_WORKERS", 2)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)


def test_numpys_openblas_is_found():
    # numpy's wheels bring scipy-openblas; without it every call would run on one thread.
    assert parallel._OPENBLAS is not None
    threads, source = parallel.blas_threads()
    assert threads >= 1 and source.startswith("OpenBLAS")


def test_every_block_runs_once_on_two_threads_at_once(two_workers):
    # The first two blocks wait for each other: this only finishes if two threads run them
    # at the same time (a sequential run would break the barrier after its timeout).
    barrier = threading.Barrier(2, timeout=10)
    done, threads = [], set()

    def block(start):
        if start < 2:
            barrier.wait()
        done.append(start)
        threads.add(threading.get_ident())

    parallel.run_blocks(block, range(10), 2)
    assert sorted(done) == list(range(10))
    assert len(threads) == 2


def test_one_worker_runs_blocks_in_order_on_the_calling_thread():
    seen = []
    parallel.run_blocks(lambda start: seen.append((start, threading.get_ident())), range(5), 1)
    assert seen == [(start, threading.get_ident()) for start in range(5)]


def test_blas_uses_one_thread_inside_and_its_setting_comes_back(two_workers):
    get = parallel._OPENBLAS[0]
    before = get()
    inside = []
    parallel.run_blocks(lambda start: inside.append(get()), range(4), 2)
    assert inside == [1] * 4
    assert get() == before


def test_an_error_in_a_block_reaches_the_caller_and_blas_is_restored(two_workers):
    get = parallel._OPENBLAS[0]
    before = get()

    def block(start):
        if start == 3:
            raise ZeroDivisionError("block 3")

    with pytest.raises(ZeroDivisionError, match="block 3"):
        parallel.run_blocks(block, range(8), 2)
    assert get() == before


@pytest.mark.parametrize("fails", [False, True])
def test_caller_and_helper_are_on_different_cores_and_the_caller_is_unpinned_after(
    two_workers, fails
):
    # The caller is pinned to the core it is on and the helper to the others, so the two
    # cannot take turns on one core; afterwards (also after an error) the caller has its own
    # CPU set back. On a one-core machine nobody is pinned.
    before = os.sched_getaffinity(0)
    barrier = threading.Barrier(2, timeout=10)
    seen = {}

    def block(start):
        if start < 2:
            barrier.wait()  # one block on each thread
        seen.setdefault(threading.get_ident(), os.sched_getaffinity(0))
        if fails and start == 3:
            raise ZeroDivisionError("block 3")

    try:
        parallel.run_blocks(block, range(6), 2)
    except ZeroDivisionError:
        assert fails
    caller = seen.pop(threading.get_ident())
    (helper,) = seen.values()
    if len(before) >= 2:
        assert len(caller) == 1 and caller < before
        assert helper == before - caller
    else:
        assert caller == helper == before
    assert os.sched_getaffinity(0) == before


def test_the_helper_gets_its_cpu_set_back_after_the_call(two_workers):
    before = os.sched_getaffinity(0)
    parallel.run_blocks(lambda start: time.sleep(0.01), range(6), 2)
    (helper,) = parallel._helpers
    deadline = time.monotonic() + 10
    while os.sched_getaffinity(helper.native_id) != before and time.monotonic() < deadline:
        time.sleep(0.01)  # the helper unpins itself just after its last block
    assert os.sched_getaffinity(helper.native_id) == before


def test_only_one_call_at_a_time_is_pinned():
    # A second session calling meanwhile is left for the scheduler to place.
    before = os.sched_getaffinity(0)
    inside, other = threading.Event(), {}

    def second_caller():  # started before the pin, so it does not inherit it
        inside.wait(10)
        with parallel._pinned_caller() as helper_cpus:
            other["helpers"], other["own"] = helper_cpus, os.sched_getaffinity(0)

    thread = threading.Thread(target=second_caller)
    thread.start()
    with parallel._pinned_caller() as helper_cpus:
        if len(before) >= 2:
            assert helper_cpus and len(os.sched_getaffinity(0)) == 1
        inside.set()
        thread.join()
    assert other == {"helpers": None, "own": before}
    assert os.sched_getaffinity(0) == before
    with parallel._pinned_caller() as helper_cpus:  # free again once the first call is over
        assert (helper_cpus is not None) == (len(before) >= 2)


def test_blas_is_set_before_the_caller_is_pinned_and_restored_after(two_workers, monkeypatch):
    # OpenBLAS may create its threads when its count is set (after a fork): they inherit the
    # affinity of the thread that sets it, which must not be the pinned caller.
    get, set_, name = parallel._OPENBLAS
    before = os.sched_getaffinity(0)
    seen = []

    def recording_set(count):
        seen.append(os.sched_getaffinity(0))
        set_(count)

    monkeypatch.setattr(parallel, "_OPENBLAS", (get, recording_set, name))
    parallel.run_blocks(lambda start: None, range(4), 2)
    assert seen == [before, before]


def test_overlapping_callers_restore_the_setting_once_the_last_leaves():
    get = parallel._OPENBLAS[0]
    before = get()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with parallel.blas_single_threaded():
            first_in.set()
            second_in.wait(10)
        seen["after first left"] = get()  # the second caller is still inside
        first_out.set()

    def second():
        first_in.wait(10)
        with parallel.blas_single_threaded():
            second_in.set()
            first_out.wait(10)
            seen["second inside"] = get()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen == {"after first left": 1, "second inside": 1}
    assert get() == before


def test_small_calls_stay_on_one_thread_large_ones_use_every_worker(monkeypatch):
    monkeypatch.setattr(parallel, "MAX_WORKERS", 2)
    assert parallel.workers_for(parallel.MIN_PARALLEL_BYTES - 1) == 1
    assert parallel.workers_for(parallel.MIN_PARALLEL_BYTES) == 2
    monkeypatch.setattr(parallel, "MAX_WORKERS", 1)  # ATTNVIZ_THREADS=1
    assert parallel.workers_for(1 << 30) == 1


def test_self_attention_is_the_same_on_one_thread_or_two(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    rng = np.random.default_rng(0)
    n, d = 900, 16  # several row blocks in float64
    X, W_Q, W_K, W_V = rng.standard_normal((n, d)), *rng.standard_normal((3, d, d))
    mask = attnviz.causal_mask(n)
    results = {}
    for workers in (1, 2):
        monkeypatch.setattr(parallel, "MAX_WORKERS", workers)
        results[workers] = attnviz.self_attention(X, W_Q, W_K, W_V, mask=mask, b_V=np.ones(d))
    for field in ("Q", "K", "V", "scores", "attention", "row_max", "row_sum", "output"):
        np.testing.assert_allclose(
            getattr(results[2], field), getattr(results[1], field), rtol=1e-12, atol=1e-12
        )


def test_sessions_calling_at_once_each_get_their_own_answer(two_workers):
    # Streamlit runs every session on its own thread: four concurrent calls, each with its
    # own sentence length, must not mix rows or leave BLAS on one thread.
    get = parallel._OPENBLAS[0]
    before = get()
    answers, errors = {}, []

    def call(n):
        try:
            rng = np.random.default_rng(n)
            X, W = rng.standard_normal((n, 8)), rng.standard_normal((3, 8, 8))
            r = attnviz.self_attention(X, *W)
            S = (X @ W[0]) @ (X @ W[1]).T / np.sqrt(8)
            A = np.exp(S - S.max(axis=1, keepdims=True))
            A /= A.sum(axis=1, keepdims=True)
            answers[n] = np.abs(r.output - A @ (X @ W[2])).max()
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(n,)) for n in (400, 513, 700, 1000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert sorted(answers) == [400, 513, 700, 1000]
    assert max(answers.values()) < 1e-12
    assert get() == before


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", 1), ("2", 2), ("0", 1), ("", None), ("many", None), ("4096", None)],
)
def test_attnviz_threads_caps_the_workers(monkeypatch, value, expected):
    monkeypatch.setenv("ATTNVIZ_THREADS", value)
    monkeypatch.setattr(parallel, "cpu_count", lambda: 2)
    assert parallel._max_workers() == (expected or 2)


def test_without_openblas_blocks_run_in_order_on_the_calling_thread(monkeypatch):
    # Another BLAS (Accelerate, MKL) cannot be kept to one thread: no helper threads then.
    monkeypatch.setattr(parallel, "_OPENBLAS", None)
    monkeypatch.setattr(parallel, "MAX_WORKERS", 2)
    assert parallel.workers_for(1 << 30) == 1
    seen = []
    parallel.run_blocks(lambda start: seen.append((start, threading.get_ident())), range(4), 2)
    assert seen == [(start, threading.get_ident()) for start in range(4)]
    with parallel.blas_single_threaded():  # a no-op, not an error
        pass
    threads, source = parallel.blas_threads()
    assert threads >= 1 and "not OpenBLAS" in source
    rng = np.random.default_rng(1)
    X, W = rng.standard_normal((700, 8)), rng.standard_normal((3, 8, 8))
    r = attnviz.self_attention(X, *W)
    np.testing.assert_allclose(r.attention.sum(axis=1), 1, rtol=1e-12)


def test_helpers_work_under_the_callers_errstate(two_workers):
    # numpy keeps np.errstate per thread: a caller that raises on (or silences) floating-point
    # warnings must get the same from the blocks its helpers run.
    barrier = threading.Barrier(2, timeout=10)
    seen = {}

    def block(start):
        if start < 2:
            barrier.wait()
        seen[threading.get_ident()] = np.geterr()["divide"]

    with np.errstate(divide="raise"):
        parallel.run_blocks(block, range(6), 2)
        with pytest.raises(FloatingPointError):
            parallel.run_blocks(lambda start: np.divide(np.ones(1), 0), range(6), 2)
    assert len(seen) == 2 and set(seen.values()) == {"raise"}


@pytest.mark.filterwarnings("error")
def test_a_row_wider_than_the_dtype_gives_no_warning():
    # max - (-max) overflows float32; exp(-inf) = 0 is the right answer, silently.
    big = np.finfo(np.float32).max / 2
    P = attnviz.softmax(np.array([[big, -big, 0.0]], dtype=np.float32))
    np.testing.assert_array_equal(P, [[1.0, 0.0, 0.0]])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_starts_its_own_helpers(two_workers):
    rng = np.random.default_rng(2)
    X, W = rng.standard_normal((300, 8)), rng.standard_normal((3, 8, 8))
    expected = attnviz.self_attention(X, *W).output  # the parent's helper is now running
    pid = os.fork()
    if pid == 0:  # the child: no helper thread was copied; a call must still finish
        code = 1
        try:
            outputs = [attnviz.self_attention(X, *W).output for _ in range(3)]
            same = all(np.allclose(out, expected, rtol=1e-12, atol=1e-12) for out in outputs)
            alive = bool(parallel._helpers) and all(h.is_alive() for h in parallel._helpers)
            deadline = time.monotonic() + 10  # a helper may take its (stale) task a bit later
            while parallel._tasks.qsize() and time.monotonic() < deadline:
                time.sleep(0.01)
            code = 0 if same and alive and not parallel._tasks.qsize() else 2 + same + 2 * alive
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
