"""Per-call overhead of the verification pool against a direct in-process call.

    .venv/bin/python bench/pool_overhead.py [--calls 2000]

The verifier is deliberately cheap (answer extraction + string compare), so the numbers
are the pool's own cost: pickling, the pipe round trip, and scheduling. A real verifier
(sympy, a sandboxed test run) costs far more per call than this overhead.
"""

from __future__ import annotations

import argparse
import statistics
import time

from rlvr_envs.pool import VerificationPool
from rlvr_envs.testing import ExactAnswerVerifier
from rlvr_envs.types import Task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()

    verifier = ExactAnswerVerifier()
    tasks = [Task(id=str(i), prompt=f"{i}+{i}?", answer=2 * i) for i in range(args.calls)]
    completions = [f"Some reasoning first. The total is \\boxed{{{2 * i}}}." for i in range(args.calls)]
    rows = []

    start = time.perf_counter()
    direct = [verifier(t, c) for t, c in zip(tasks, completions)]
    total = time.perf_counter() - start
    rows.append(("direct in-process call", total, total / args.calls))
    if not all(v.passed for v in direct):
        raise SystemExit("direct verification failed: the benchmark is broken")

    for workers in (1, 2):
        with VerificationPool(workers) as pool:
            pool.map(verifier, tasks[: workers * 4], completions[: workers * 4])  # start and warm the workers
            start = time.perf_counter()
            verdicts = pool.map(verifier, tasks, completions)
            total = time.perf_counter() - start
            if verdicts != direct:
                raise SystemExit("the pool disagreed with direct verification")
            rows.append((f"pool.map, {workers} worker(s), batch", total, total / args.calls))

            latencies = []
            for t, c in zip(tasks[:300], completions[:300]):
                t0 = time.perf_counter()
                pool.submit(verifier, t, c).result()
                latencies.append(time.perf_counter() - t0)
            rows.append(
                (f"pool.submit, {workers} worker(s), one at a time (p50)", sum(latencies), statistics.median(latencies))
            )

    base = rows[0][2]
    print(f"{'mode':<48} {'per call (us)':>14} {'vs direct':>10} {'calls/s':>10}")
    print("-" * 86)
    for name, _total, per_call in rows:
        print(f"{name:<48} {per_call * 1e6:>14.1f} {per_call / base:>9.1f}x {1 / per_call:>10.0f}")
    print(f"\npool overhead per call (1 worker, batch): {(rows[1][2] - base) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
