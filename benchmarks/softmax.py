"""Why attnviz's float32 attention at n = 2048 is not as fast as PyTorch eager: the softmax.

    python benchmarks/softmax.py                 # one 1 MiB block of rows, n = 1024 and 2048
    python benchmarks/softmax.py --reps 51

On one thread, on a block of rows the size ``attnviz.core.attend`` works on (1 MiB, in cache),
nanoseconds per element, side by side in one run (interleaved rounds, medians):

* numpy exp: ``np.exp(z, out=p)`` alone, one of the passes of attnviz's softmax.
* attnviz softmax: ``stable_softmax.softmax_into`` as the core calls it (``shift=False``:
  logits bounded; max, exp, sum and scale are separate numpy passes).
* attnviz shifted: the same with the row maxima subtracted first (unbounded logits).
* torch exp, torch softmax: PyTorch's ``exp`` and its fused ``softmax`` on the same numbers.

The two matrix products around the softmax (Q K^T and A V) cost about the same in numpy and
torch (``benchmarks/core.py``'s floor), so the difference in whole-call time at n = 2048 is
this one: ratio x elements / threads. A script, never a test: its numbers depend on the machine.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a clone, not installed

from attnviz import parallel
from attnviz.stable_softmax import block_rows, softmax_into


def contenders(n, torch):
    """{name: zero-argument function} on one block of float32 logits (rows, n)."""
    rows = block_rows(n, np.float32)
    z = (np.random.default_rng(n).standard_normal((rows, n)) * 3).astype(np.float32)
    p = np.empty_like(z)
    row_max, row_sum = np.empty(rows, np.float32), np.empty(rows, np.float32)
    runs = {
        "numpy exp": lambda: np.exp(z, out=p),
        "attnviz softmax": lambda: softmax_into(z, p, row_max, row_sum, shift=False),
        "attnviz shifted": lambda: softmax_into(z, p, row_max, row_sum, shift=True),
    }
    if torch is not None:
        zt, pt = torch.from_numpy(z), torch.from_numpy(p)
        runs["torch exp"] = lambda: torch.exp(zt, out=pt)
        runs["torch softmax"] = lambda: torch.softmax(zt, dim=-1)
        softmax_into(z, p, row_max, row_sum, shift=False)
        if not np.allclose(torch.softmax(zt, dim=-1).numpy(), p, rtol=1e-5, atol=1e-7):
            sys.exit(f"torch and attnviz disagree at n={n}")
    return rows, runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    parser.add_argument("--reps", type=int, default=31, help="timed rounds per contender")
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        torch = None
        print("torch: not importable, its rows are skipped (pip install torch to add them)")

    with parallel.blas_single_threaded():  # one thread everywhere: per-element costs
        for n in args.sizes:
            rows, runs = contenders(n, torch)
            times = {name: [] for name in runs}
            for _ in range(args.reps + 1):  # the first round warms up and is thrown away
                for name, run in runs.items():
                    start = time.perf_counter()
                    run()
                    times[name].append(time.perf_counter() - start)
            ns = {name: statistics.median(t[1:]) * 1e9 / (rows * n) for name, t in times.items()}
            base = ns.get("torch softmax")
            print(f"\nn = {n}: a block of {rows} x {n} float32 logits, 1 thread, ns per element")
            for name, value in ns.items():
                ratio = f"{value / base:5.2f} x torch softmax" if base else ""
                print(f"  {name:16} {value:6.2f}  {ratio}")


if __name__ == "__main__":
    main()
