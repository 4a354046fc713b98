"""Print the runtime of each lesson experiment, at default arguments and at the app's limits.

Run on one core, as a page rerun would share the machine:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python -m benchmarks.lessons_timing
"""

import time
from dataclasses import replace

from attnviz import Settings, compute, lessons
from attnviz.limits import MAX_D_K, MAX_D_MODEL, MAX_D_V, MAX_TOKENS


def best_of(f, repeats=3):
    f()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    default = Settings()
    largest = replace(
        default,
        generated=True,
        n=MAX_TOKENS,
        d_model=MAX_D_MODEL,
        d_k=MAX_D_K,
        d_v=MAX_D_V,
    )
    for name, s in (("default settings", default), ("app limits (n = d = 512)", largest)):
        example = compute(s)
        n = len(s.tokens)
        runs = {
            "dot_product_variance()": lessons.dot_product_variance,
            "saturation_curve(result, seed)": lambda e=example: lessons.saturation_curve(
                e.result, e.settings.seed
            ),
            "scaling_pair(result, seed, d_k)": lambda e=example: lessons.scaling_pair(
                e.result, e.settings.seed, e.settings.d_k
            ),
            "softmax_gradient_norm()": lessons.softmax_gradient_norm,
            "softmax_gradient_norm(scaled_scores)": lambda e=example: lessons.softmax_gradient_norm(
                e.result.scaled_scores
            ),
            "build_mask('causal', n)": lambda n=n: lessons.build_mask("causal", n),
            "temperature_sweep(result)": lambda e=example: lessons.temperature_sweep(e.result),
            "permutation_experiment(off, on)": lambda s=s: lessons.permutation_experiment(
                *(compute(replace(s, positions=p, mask="none")) for p in (False, True))
            ),
            "quiz(result, labels)": lambda e=example: lessons.quiz(e.result, e.labels),
        }
        print(f"{name}:")
        for label, f in runs.items():
            print(f"  {label:40s} {best_of(f) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
