"""Time loading all-MiniLM-L6-v2 and attnviz's numpy forward pass; report the peak memory.

    python -m benchmarks.pretrained                       # 32 tokens, 1 BLAS thread, float32
    python -m benchmarks.pretrained --tokens 32 128 512 --reps 9 --threads 2 --dtype float64

Loads the model once (the files from wherever ``attnviz.load_pretrained()`` finds them), then for
each token count runs ``model.run(text)`` once cold and ``--reps`` more times. Times are the
wall clock and the process's CPU time (``time.process_time``): with one BLAS thread, the CPU
time is close to what a run costs on a core of its own even when neighbours share the machine
(the load average is printed). Peak RSS is the process's high-water mark
(``resource.getrusage``) after each step, so it includes Python, numpy, tokenizers, the weights
and the largest trace alive so far (a 512-token float32 trace alone is about 230 MB: 72 heads x
three (n, n) matrices). A script, never a test: its numbers depend on the machine.
"""

import argparse
import os
import platform
import resource
import statistics
import time

SENTENCE = (
    "the quick brown fox jumps over a lazy dog while every word in this sentence "
    "looks at all the others and decides how much each one matters"
)


def peak_rss_mb():
    """The process's peak resident memory so far, as text in MB (ru_maxrss is KiB on Linux)."""
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"


def text_of(model, n):
    """A sentence of exactly ``n`` word pieces, [CLS] and [SEP] included."""
    pool, words = SENTENCE.split(), []
    while len(model.tokenize(" ".join(words))) < n:
        words.append(pool[len(words) % len(pool)])
    text = " ".join(words)
    assert len(model.tokenize(text)) == n, f"could not make a text of {n} word pieces"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[32], help="word pieces (n)")
    parser.add_argument("--reps", type=int, default=9, help="timed runs per n, after a cold one")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (one core: 1)")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    args = parser.parse_args()
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before numpy loads its BLAS

    import numpy as np

    import attnviz

    def timed(step):
        """(wall, CPU) seconds of ``step()``; the result is dropped: one trace lives at a time."""
        wall, cpu = time.perf_counter(), time.process_time()
        step()
        return time.perf_counter() - wall, time.process_time() - cpu

    def ms(seconds):
        return f"{seconds * 1e3:.0f} ms"

    rows = [("import numpy + attnviz", "", "", peak_rss_mb())]
    wall, cpu = time.perf_counter(), time.process_time()
    model = attnviz.load_pretrained(dtype=args.dtype)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rows.append(("load (once)", f"{wall:.2f} s", f"{cpu:.2f} s", peak_rss_mb()))
    for n in sorted(args.tokens):
        text = text_of(model, n)
        wall, cpu = timed(lambda text=text: model.run(text))
        rows.append((f"forward {n} tokens, first run", ms(wall), ms(cpu), ""))
        runs = [timed(lambda text=text: model.run(text)) for _ in range(args.reps)]
        walls, cpus = zip(*runs, strict=True)
        median = f"forward {n} tokens, median of {args.reps}"
        rows.append((median, ms(statistics.median(walls)), ms(statistics.median(cpus)), ""))
        rows.append((f"forward {n} tokens, fastest", ms(min(walls)), ms(min(cpus)), peak_rss_mb()))

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{model.name}: numpy forward in {args.dtype}, {args.threads} BLAS thread(s); "
        f"Python {platform.python_version()}, numpy {np.__version__}; "
        f"{os.cpu_count()} CPUs, load average {load}; model from {model.source}"
    )
    width = max(len(row[0]) for row in rows)
    print(f"{'step':<{width}}  {'wall':>8}  {'CPU':>8}  {'peak RSS':>8}")
    for step, wall, cpu, rss in rows:
        print(f"{step:<{width}}  {wall:>8}  {cpu:>8}  {rss:>8}")


if __name__ == "__main__":
    main()
