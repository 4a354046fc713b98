"""Spread independent blocks of rows over the CPU cores, with BLAS on one thread meanwhile.

Why this exists: numpy's element-wise functions (``exp``, ``max``, ``sum`` ...) run on one core,
so a softmax over an (n, n) matrix leaves the other cores idle, while PyTorch spreads it over
all of them. Python threads can share that work (numpy releases the GIL inside its loops), but
OpenBLAS, which does numpy's matrix products, has worker threads of its own that keep spinning
for about 0.1 s after each product and would take a core from ours. So while the blocks run on
several threads, OpenBLAS is asked to use one thread per product (each block's products are
small) and is given its own setting back afterwards.

``run_blocks`` falls back to one block after another when there is one core, one block, or a
BLAS that is not OpenBLAS (its threads cannot be told apart from ours).

For the length of a call the caller is pinned to the core it is on and the helpers to the
other cores (Linux), then every thread gets its own CPU set back; only when no other call is
running, since pins would keep the scheduler from spreading several sessions' calls. Without
pins, the scheduler often wakes a helper on the caller's core and leaves it there for a call
this short: two threads taking turns on one core, half the time (measured at n = 1024: 11 ms
unpinned vs 6.5 ms pinned).

The number of threads is the number of cores this process may use, capped by the environment
variable ``ATTNVIZ_THREADS`` (``ATTNVIZ_THREADS=1`` turns threading off).
"""

import ctypes
import os
import queue
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np


def cpu_count():
    """Cores this process may run on (its CPU affinity, which containers narrow), at least 1."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _max_workers():
    cap = os.environ.get("ATTNVIZ_THREADS", "")
    return max(1, min(int(cap), cpu_count())) if cap.isdigit() else cpu_count()


MAX_WORKERS = _max_workers()  # threads run_blocks may use; tests and benchmarks may change it
# Below this many bytes of one (n, n) matrix, waking a helper costs more than it saves
# (measured with benchmarks/core.py's sizes: float32 n = 512 (1 MiB) was slower on two
# threads, n = 640 (1.6 MiB) and float64 n = 512 (2 MiB) faster).
MIN_PARALLEL_BYTES = 3 << 19  # 1.5 MiB

_GETTERS = (
    "scipy_openblas_get_num_threads64_",  # numpy's own wheels (scipy-openblas, 64-bit ints)
    "scipy_openblas_get_num_threads",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",  # Debian's and conda's libopenblas
)


def _loaded_openblas():
    """(get_num_threads, set_num_threads, library path) of the OpenBLAS numpy loaded, or None.

    Found by its path in /proc/self/maps (Linux): numpy has no API for it.
    """
    np.ones((2, 2)) @ np.ones((2, 2))  # make sure the BLAS library is loaded
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)  # already loaded: this only looks it up
        except OSError:
            continue
        for name in _GETTERS:
            setter = name.replace("_get_", "_set_")
            if hasattr(lib, name) and hasattr(lib, setter):
                get, set_ = getattr(lib, name), getattr(lib, setter)
                get.restype, get.argtypes = ctypes.c_int, []
                set_.restype, set_.argtypes = None, [ctypes.c_int]
                return get, set_, Path(path).name
    return None


_OPENBLAS = _loaded_openblas()


def _load_sched_getcpu():
    """The C library's ``sched_getcpu`` (the core the calling thread is on), or None."""
    try:
        getcpu = ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError):  # no C library to open, or none with sched_getcpu
        return None
    getcpu.restype, getcpu.argtypes = ctypes.c_int, []
    return getcpu


_sched_getcpu = _load_sched_getcpu()


def _set_affinity(cpus):
    """Run the calling thread only on ``cpus``; False if the system refused or cannot."""
    try:
        os.sched_setaffinity(0, cpus)  # 0: the calling thread (Linux)
    except (AttributeError, OSError):
        return False
    return True


_pin_lock = threading.Lock()
_pinned = False  # a call has its caller pinned right now


@contextmanager
def _pinned_caller():
    """Pin the calling thread to the core it runs on; yield the cores left for the helpers
    (None if it was not pinned), and give it its CPU set back.

    Only one call at a time is pinned: with several sessions calling at once, pins would only
    stop the scheduler from spreading them (two callers pinned to one core would take turns).
    """
    global _pinned
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        allowed = set()
    cpu = _sched_getcpu() if _sched_getcpu is not None else -1
    others = allowed - {cpu}
    with _pin_lock:
        claimed = not _pinned and cpu in allowed and bool(others)
        _pinned = _pinned or claimed
    pinned = claimed and _set_affinity({cpu})
    try:
        yield others if pinned else None
    finally:
        if pinned:
            _set_affinity(allowed)
        if claimed:
            with _pin_lock:
                _pinned = False


_lock = threading.Lock()
_users = 0  # callers inside blas_single_threaded() right now
_saved = None  # OpenBLAS's thread count before the first of them came in


def blas_threads():
    """(threads, description) of numpy's BLAS: OpenBLAS asked directly, else a guess."""
    if _OPENBLAS is not None:
        get, _, name = _OPENBLAS
        return get(), f"OpenBLAS ({name})"
    return cpu_count(), "unknown BLAS (not OpenBLAS): assumed to use every core"


@contextmanager
def blas_single_threaded():
    """OpenBLAS uses one thread per call inside; its own setting comes back when the last
    concurrent caller leaves (a count, so overlapping callers cannot restore a wrong value).

    The setting is process-wide: a product another thread runs meanwhile also uses one thread.
    The count is not guarded against asynchronous exceptions between two statements (only
    KeyboardInterrupt, in the main thread; Streamlit stops a script only at its ``st`` calls).
    """
    global _users, _saved
    if _OPENBLAS is None:
        yield
        return
    get, set_, _ = _OPENBLAS
    with _lock:
        if _users == 0:
            _saved = get()
            set_(1)
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                set_(_saved)


class _Blocks:
    """Blocks shared by the caller and the helpers: each takes the next start until none is left.

    Helpers run with the caller's ``np.errstate`` (numpy keeps it per thread), so a caller that
    silences or raises on floating-point warnings gets the same on one thread or several.
    """

    def __init__(self, block, starts, helper_cpus=None):
        self.block = block
        self.caller = threading.get_ident()
        self.helper_cpus = helper_cpus  # cores a helper moves to, None to stay where it is
        self.todo = iter(starts)
        self.changed = threading.Condition()
        self.busy = set()  # threads running a block now
        self.errors = []
        self.errstate = np.geterr()  # the caller's

    def work(self):
        me = threading.get_ident()
        if me == self.caller or self.helper_cpus is None:
            self._work(me)
            return
        before = os.sched_getaffinity(0)
        _set_affinity(self.helper_cpus)  # off the caller's core for this call
        try:
            self._work(me)
        finally:
            _set_affinity(before)

    def _work(self, me):
        with np.errstate(**self.errstate):
            while True:
                with self.changed:
                    start = None if self.errors else next(self.todo, None)
                    if start is None:
                        return
                    self.busy.add(me)
                try:
                    self.block(start)
                except BaseException as exc:  # handed to the caller by run_blocks
                    with self.changed:
                        self.errors.append(exc)
                finally:
                    with self.changed:
                        self.busy.discard(me)
                        self.changed.notify_all()

    def wait(self):
        """Until no other thread runs a block. Never waits for a helper that has not started
        (it finds nothing left and returns), nor for the caller's own bookkeeping."""
        others_busy = lambda: self.busy - {threading.get_ident()}  # noqa: E731
        with self.changed:
            self.changed.wait_for(lambda: not others_busy())


_tasks = queue.SimpleQueue()  # _Blocks.work of every call, for whichever helper is free
_helpers = []
_helpers_lock = threading.Lock()


def _helper():
    while True:
        _tasks.get()()


def _after_fork_in_child():
    """A forked child has none of the parent's threads: start again with no helpers, fresh
    locks, and OpenBLAS given back its setting if the fork came in the middle of a call."""
    global _tasks, _helpers, _helpers_lock, _lock, _users
    if _users and _OPENBLAS is not None:
        _OPENBLAS[1](_saved)
    _tasks, _helpers, _helpers_lock = queue.SimpleQueue(), [], threading.Lock()
    _lock, _users = threading.Lock(), 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _start_helpers(count):
    """Make sure ``count`` helper threads exist (kept for the life of the process: starting a
    thread costs about 0.25 ms here, as much as a small attention)."""
    with _helpers_lock:
        while len(_helpers) < count:
            name = f"attnviz-helper-{len(_helpers)}"
            helper = threading.Thread(target=_helper, name=name, daemon=True)
            helper.start()
            _helpers.append(helper)


def workers_for(nbytes):
    """Threads worth using for a call whose (n, n) matrices take ``nbytes`` each: 1 below
    MIN_PARALLEL_BYTES or without OpenBLAS, else MAX_WORKERS."""
    return MAX_WORKERS if nbytes >= MIN_PARALLEL_BYTES and _OPENBLAS is not None else 1


def run_blocks(block, starts, workers):
    """Call ``block(start)`` once for every item of ``starts``, on up to ``workers`` threads.

    The blocks must be independent (each writes only its own rows). The calling thread works
    too and returns when every block is done; the first exception a block raised is re-raised.
    With one worker the blocks run in order on the calling thread and BLAS keeps its threads.
    """
    starts = list(starts)
    workers = min(workers, len(starts))
    if workers < 2 or _OPENBLAS is None:
        for start in starts:
            block(start)
        return
    _start_helpers(workers - 1)
    # BLAS first: a forked process's OpenBLAS creates its threads again when its thread count
    # is set, and threads created by a pinned caller would stay on its one core for good.
    with blas_single_threaded(), _pinned_caller() as helper_cpus:
        blocks = _Blocks(block, starts, helper_cpus)
        try:
            for _ in range(workers - 1):
                _tasks.put(blocks.work)
            blocks.work()
        finally:  # also when the caller is interrupted: helpers take no new block
            with blocks.changed:
                blocks.todo = iter(())
            blocks.wait()
    if blocks.errors:
        raise blocks.errors[0]
