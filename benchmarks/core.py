"""Time ``attnviz.self_attention`` against its floor and against PyTorch eager.

    python -m benchmarks.core                 # n = 256, 1024, 2048; float32 and float64
    python -m benchmarks.core --reps 21 --sizes 2048

For each n (d_model = d_k = d_v = 64) and dtype, three contenders run the same sizes:

* attnviz: ``self_attention(X, W_Q, W_K, W_V)``, the plain numpy reference, every step kept
  (validation included).
* floor: only the matrix products attention cannot avoid: the three projections, ``Q @ K.T``
  and ``A @ V`` with Q, K, V and A precomputed (no scaling, no softmax, no checks).
* torch: PyTorch eager doing the same math (projections, ``q @ k.T / sqrt(d_k)``,
  ``torch.softmax``, ``@ v``), with as many threads as numpy's BLAS uses. Skipped when torch is
  not importable: it is not a project dependency.

Repetitions are interleaved (every contender and size once per round, in a rotating order) so a
busy neighbour slows them all alike; the table gives medians in milliseconds and the ratios.
Each turn starts with a short pause (numpy's OpenBLAS workers spin for about 0.1 s after a
call and would take a core from torch's threads) and one untimed call that wakes the
contender's own threads; the call after it is timed.
A script, never a test: its numbers depend on the machine.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

import attnviz

D = 64  # d_model = d_k = d_v


def blas_threads():
    """(threads numpy's BLAS uses, where that number was read), from threadpoolctl if it is
    installed, else the usual environment variables, else the machine's cores."""
    try:
        from threadpoolctl import threadpool_info

        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        if blas:
            return blas[0]["num_threads"], f"threadpoolctl ({blas[0]['internal_api']})"
    except ImportError:
        pass
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name]), name
    return os.cpu_count() or 1, "os.cpu_count()"


def load_torch(threads):
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch


def contenders(n, dtype, torch):
    """{name: zero-argument function} for one size, inputs made once outside the timing."""
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, D)).astype(dtype)
    W_Q, W_K, W_V = ((rng.standard_normal((D, D)) / np.sqrt(D)).astype(dtype) for _ in range(3))
    ref = attnviz.self_attention(X, W_Q, W_K, W_V)
    Q, K, V, A = (np.array(a) for a in (ref.Q, ref.K, ref.V, ref.attention))

    def run_attnviz():
        return attnviz.self_attention(X, W_Q, W_K, W_V).output

    def run_floor():
        X @ W_Q  # (n, d_model) @ (d_model, d_k)
        X @ W_K
        X @ W_V
        Q @ K.T  # (n, d_k) @ (d_k, n) -> (n, n)
        return A @ V  # (n, n) @ (n, d_v) -> (n, d_v)

    runs = {"attnviz": run_attnviz, "floor": run_floor}
    if torch is not None:
        x, wq, wk, wv = (torch.from_numpy(a) for a in (X, W_Q, W_K, W_V))

        def run_torch():
            with torch.inference_mode():
                q, k, v = x @ wq, x @ wk, x @ wv
                a = torch.softmax(q @ k.T / math.sqrt(D), dim=-1)
                return a @ v

        out = run_torch().numpy()
        tol = 1e-4 if dtype == np.float32 else 1e-10
        if not np.allclose(out, ref.output, rtol=tol, atol=tol):
            sys.exit(f"torch and attnviz disagree at n={n}, {np.dtype(dtype).name}")
        runs["torch"] = run_torch
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 2048])
    parser.add_argument("--reps", type=int, default=15, help="timed rounds (after one warm-up)")
    parser.add_argument(
        "--without-torch",
        action="store_true",
        help="leave torch out even if it is installed (its allocations change how glibc "
        "recycles memory for numpy in the same process)",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=0.15,
        help="seconds of sleep before each contender's turn, so the thread pool of the previous "
        "one stops spinning (OpenBLAS workers busy-wait about 0.1 s after a call)",
    )
    args = parser.parse_args()

    threads, source = blas_threads()
    torch = None if args.without_torch else load_torch(threads)
    print(f"numpy {np.__version__}, BLAS threads: {threads} from {source}")
    if torch is None:
        print("torch: not importable, its column is skipped (pip install torch to add it)")
    else:
        print(
            f"torch {torch.__version__}, threads set to {torch.get_num_threads()} "
            f"(interop {torch.get_num_interop_threads()})"
        )
    print(
        f"d_model = d_k = d_v = {D}; median of {args.reps} interleaved rounds, "
        f"each a pause of {args.settle} s, one untimed call, one timed call\n"
    )

    cases = [(n, dt) for n in args.sizes for dt in (np.float32, np.float64)]
    runs = {case: contenders(*case, torch) for case in cases}
    jobs = [(case, name) for case in cases for name in runs[case]]
    times = {job: [] for job in jobs}
    for round_ in range(args.reps + 1):  # round 0 warms up and is thrown away
        shift = round_ % len(jobs)
        for case, name in jobs[shift:] + jobs[:shift]:
            time.sleep(args.settle)
            runs[case][name]()  # untimed: wakes this contender's threads after the pause
            start = time.perf_counter()
            runs[case][name]()
            elapsed = time.perf_counter() - start
            if round_:
                times[case, name].append(elapsed * 1e3)

    header = f"{'n':>5} {'dtype':>7} {'attnviz ms':>10} {'floor ms':>9}"
    header += f" {'torch ms':>9} {'attnviz/floor':>13} {'attnviz/torch':>13}"
    print(header)
    for case in cases:
        n, dt = case
        med = {name: statistics.median(times[case, name]) for name in runs[case]}
        t_torch = f"{med['torch']:9.2f}" if "torch" in med else f"{'skipped':>9}"
        r_torch = f"{med['attnviz'] / med['torch']:13.2f}" if "torch" in med else f"{'-':>13}"
        print(
            f"{n:>5} {np.dtype(dt).name:>7} {med['attnviz']:10.2f} "
            f"{med['floor']:9.2f} {t_torch} {med['attnviz'] / med['floor']:13.2f} {r_torch}"
        )


if __name__ == "__main__":
    main()
