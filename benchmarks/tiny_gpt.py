"""Time the tiny GPT's default run of each task: steps per second, time to the target loss.

    python -m benchmarks.tiny_gpt                          # every task's default, 1 BLAS thread
    python -m benchmarks.tiny_gpt --tasks induction --seeds 0 1 2 --unscaled
    python -m benchmarks.tiny_gpt --threads 0              # numpy's own BLAS thread count

Trains the run the page "Watch a head learn" offers by default for each task
(``attnviz.links.tiny_gpt.TASK_DEFAULTS``), as the page does (``train``, Adam, 25
checkpoints scored on a fixed batch), and prints: the wall and CPU seconds of the whole run,
steps per CPU second, the step at which the training loss (mean of 20 steps) first fell below
the task's target and the CPU seconds it took to get there, and the final loss on the fixed
batch. With one BLAS thread the CPU time is close to what the run costs on a core of its own
even when neighbours share the machine (the load average is printed). ``--unscaled`` trains
the same run without the division by sqrt(d_k) too (the page's comparison). A script, never a
test: its numbers depend on the machine.
"""

import argparse
import os
import platform
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", help="task names (default: every task)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="one run per seed")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads; 0: numpy's own")
    parser.add_argument("--unscaled", action="store_true", help="also train without scaling")
    args = parser.parse_args()
    if args.threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)  # before numpy loads its BLAS

    import numpy as np

    from attnviz.links.tiny_gpt import TASK_DEFAULTS, default_choice
    from attnviz.tiny_gpt import train

    def timed_run(choice, scale):
        """(TrainRun, wall s, CPU s, CPU s after each step)."""
        cpu_at = []
        wall, cpu = time.perf_counter(), time.process_time()
        run = train(
            choice.config(scale),
            choice.make_task(),
            choice.steps,
            callback=lambda step, losses: cpu_at.append(time.process_time()),
        )
        wall, cpu_total = time.perf_counter() - wall, time.process_time() - cpu
        return run, wall, cpu_total, np.array(cpu_at) - cpu

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    threads = args.threads or "numpy's default"
    print(
        f"tiny GPT, float64, {threads} BLAS thread(s); Python {platform.python_version()}, "
        f"numpy {np.__version__}; {os.cpu_count()} CPUs, load average {load}"
    )
    header = (
        f"{'task':<10} {'seed':>4} {'scale':>5} {'model':<22} {'steps':>5} {'wall s':>7} "
        f"{'CPU s':>6} {'steps/s':>7} {'target':>6} {'reached':>7} {'CPU s to':>8} {'final':>6}"
    )
    print(header)
    for name in args.tasks or list(TASK_DEFAULTS):
        for seed in args.seeds:
            choice = default_choice(name, seed)
            for scale in (True, False) if args.unscaled else (True,):
                run, wall, cpu, cpu_at = timed_run(choice, scale)
                target = run.task.target_loss
                reached = run.first_step_below(target)
                to_target = f"{cpu_at[reached - 1]:.2f}" if reached else "-"
                model = (
                    f"{choice.n_layers}L {choice.n_heads}H d{choice.d_model}"
                    f"{' MLP' if choice.mlp else ''}"
                )
                print(
                    f"{name:<10} {seed:>4} {'on' if scale else 'off':>5} {model:<22} "
                    f"{choice.steps:>5} {wall:>7.2f} {cpu:>6.2f} {choice.steps / cpu:>7.0f} "
                    f"{target:>6g} {reached or '-':>7} {to_target:>8} "
                    f"{run.eval_losses[-1]:>6.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
