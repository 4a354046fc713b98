"""Tiled vs full attention: time and peak memory, side by side, at n = 1024 to 8192.

From the root: python -m benchmarks.tiled [--sizes 1024 2048] [--repeats 3] [--no-sweep]

Both sides start from the same X (n, 64) and weights (64, 64), d_k = d_v = 64, no mask:
``self_attention(X, W_Q, W_K, W_V)`` (which keeps every step: scores, scaled_scores,
attention) against ``tiled_attention(X @ W_Q, X @ W_K, X @ W_V)``.

Time is the best of ``--repeats`` runs, as CPU seconds of this process on one BLAS thread
(``OPENBLAS_NUM_THREADS=1`` unless you set it), so that other work on a shared machine does
not change the figures; wall-clock seconds are printed beside it. Peak memory is tracemalloc's peak
over one more run: numpy reports its array allocations to tracemalloc, so this is the most the
call held in arrays at once (its result included), not the process RSS. A configuration whose
full run is estimated above ``--limit-gb`` is skipped and reported as such.
"""

import argparse
import os
import time
import tracemalloc

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads OpenBLAS
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from attnviz import self_attention
from attnviz.tiled import DEFAULT_BLOCK_SIZE, tiled_attention

D = 64  # d_model = d_k = d_v
MiB = 2**20


def inputs(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D)).astype(dtype)
    W_Q, W_K, W_V = ((rng.standard_normal((D, D)) / np.sqrt(D)).astype(dtype) for _ in range(3))
    return X, W_Q, W_K, W_V


def full(X, W_Q, W_K, W_V, block_size):
    return self_attention(X, W_Q, W_K, W_V).output


def tiled(X, W_Q, W_K, W_V, block_size):
    return tiled_attention(X @ W_Q, X @ W_K, X @ W_V, block_size=block_size).output


def measure(fn, args, block_size, repeats):
    """(best CPU seconds, best wall seconds, peak bytes, output) of fn(*args, block_size)."""
    cpu = wall = np.inf
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        out = fn(*args, block_size)
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
        del out
    tracemalloc.start()
    try:
        out = fn(*args, block_size)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return cpu, wall, peak, out


def full_estimate(n, dtype):
    """Bytes self_attention holds at its peak: scores, scaled_scores, attention (n, n) each."""
    return 3 * n * n * np.dtype(dtype).itemsize


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    parser.add_argument("--block-size", type=int, default=DEFAULT_BLOCK_SIZE)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit-gb", type=float, default=6.0)
    parser.add_argument("--no-sweep", action="store_true", help="skip the block-size sweep")
    args = parser.parse_args()

    threads = os.environ["OPENBLAS_NUM_THREADS"]
    print(
        f"numpy {np.__version__}, {os.cpu_count()} cores, OPENBLAS_NUM_THREADS={threads}, "
        f"d_k = d_v = d_model = {D}, no mask, block_size = {args.block_size}, "
        f"best of {args.repeats} runs"
    )
    print(
        "s: CPU seconds (wall seconds in brackets); "
        "MiB: tracemalloc peak of the call's arrays, result included\n"
    )
    header = (
        f"{'n':>5} {'dtype':>7} | {'full s':>14} {'tiled s':>14} {'tiled/full':>10} | "
        f"{'full MiB':>9} {'tiled MiB':>9} {'full/tiled':>10} | {'max |diff|':>10}"
    )
    print(header)
    print("-" * len(header))
    skipped = []
    for n in args.sizes:
        for dtype in (np.float32, np.float64):
            name = np.dtype(dtype).name
            estimate = full_estimate(n, dtype)
            if estimate > args.limit_gb * 1e9:
                skipped.append(f"n={n} {name}: full needs ~{estimate / 1e9:.1f} GB")
                print(f"{n:>5} {name:>7} | skipped: full needs ~{estimate / 1e9:.1f} GB")
                continue
            data = inputs(n, dtype)
            full_s, full_w, full_peak, full_out = measure(full, data, args.block_size, args.repeats)
            tiled_s, tiled_w, tiled_peak, tiled_out = measure(
                tiled, data, args.block_size, args.repeats
            )
            diff = float(np.abs(full_out - tiled_out).max())
            del full_out, tiled_out
            print(
                f"{n:>5} {name:>7} | {full_s:>6.3f} ({full_w:>5.2f}) {tiled_s:>6.3f} "
                f"({tiled_w:>5.2f}) {tiled_s / full_s:>10.2f} | "
                f"{full_peak / MiB:>9.1f} {tiled_peak / MiB:>9.1f} "
                f"{full_peak / tiled_peak:>10.1f} | {diff:>10.1e}"
            )
    print(f"\nskipped (over {args.limit_gb:g} GB): " + ("; ".join(skipped) if skipped else "none"))

    if args.no_sweep:
        return
    n = 4096
    print(f"\nblock-size sweep, tiled only, n = {n}: CPU seconds (peak MiB)")
    sizes = [32, 64, 128, 256, 512, 1024, 4096]
    print(f"{'dtype':>7} | " + " ".join(f"{'b=' + str(b):>14}" for b in sizes))
    for dtype in (np.float32, np.float64):
        data = inputs(n, dtype)
        cells = []
        for b in sizes:
            seconds, _, peak, _ = measure(tiled, data, b, args.repeats)
            cells.append(f"{seconds:>6.3f} ({peak / MiB:>5.1f})")
        print(f"{np.dtype(dtype).name:>7} | " + " ".join(f"{c:>14}" for c in cells))


if __name__ == "__main__":
    main()
