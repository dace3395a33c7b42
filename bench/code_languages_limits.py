"""Benchmark: what infinite loops cost a batch of C samples under wall-only and CPU-budget limits.

The languages runner (C, C++, Java, JavaScript, Go, Rust) now enforces a task's ``cpu_limit_s``
as the Python sandbox does. A batch of C stdin/stdout tasks (canonical solutions, cycled to
``--batch`` samples) and the same batch with ``--loops`` of them (5% by default, evenly spaced)
replaced by ``for(;;);``, each run under:

* **wall**: the tasks after ``rlvr_code.limits.calibrate`` with only their wall limit (10 x the
  reference's whole ``verify``, compile included, floor 0.25 s);
* **calibrated**: the same tasks with their CPU budget per run too (``cpu_limit_s``: 3 x the
  reference's CPU per run as the runner measured it, floor 0.05 s), as ``calibrate`` stores them.

``--lanes`` samples run at a time (threads over one verifier). Each repeat runs, per policy, its
clean batch, its loops batch twice and its clean batch again; printed: wall seconds per batch
(median over repeats), verdict counts (every clean sample must pass and every loop time out, or
the timing means nothing), and each loops/clean ratio beside the goal (calibrated <= 1.5x).

    .venv/bin/python bench/code_languages_limits.py                  # 40 samples, 5% loops, 2 lanes
    .venv/bin/python bench/code_languages_limits.py --batch 100 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import rlvr_envs
from rlvr_code.limits import CPU_LIMIT_KEY, calibrate

GOAL = 1.5
LOOP = "```c\nint main(void){volatile long x=0;for(;;)x++;}\n```"
_HEAD = "#include <stdio.h>\n"
PROBLEMS = [
    (
        "sum",
        _HEAD + 'int main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}',
        [("1 2\n", "3\n"), ("-5 5\n", "0\n"), ("1000000 2\n", "1000002\n")],
    ),
    (
        "max",
        _HEAD + 'int main(void){int n;long m=-1000000000,x;scanf("%d",&n);while(n--){scanf("%ld",&x);if(x>m)m=x;}'
        'printf("%ld\\n",m);return 0;}',
        [("3\n1 5 2\n", "5\n"), ("1\n-7\n", "-7\n")],
    ),
    (
        "reverse",
        _HEAD + '#include <string.h>\nint main(void){char s[1024];if(scanf("%1023s",s)!=1)return 1;'
        "for(int i=(int)strlen(s)-1;i>=0;i--)putchar(s[i]);putchar(10);return 0;}",
        [("abc\n", "cba\n"), ("x\n", "x\n")],
    ),
    (
        "primes",
        _HEAD + 'int main(void){int n,c=0;scanf("%d",&n);for(int i=2;i<=n;i++){int p=1;'
        'for(int d=2;d*d<=i;d++)if(i%d==0){p=0;break;}c+=p;}printf("%d\\n",c);return 0;}',
        [("10\n", "4\n"), ("100000\n", "9592\n")],
    ),
]


def _rows() -> list[dict[str, Any]]:
    return [
        {
            "id": name,
            "prompt": name,
            "answer": {
                "format": "stdio",
                "language": "c",
                "cases": [{"input": i, "output": o} for i, o in cases],
                "canonical_solution": code,
            },
        }
        for name, code, cases in PROBLEMS
    ]


def _batch(env: Any, pool: list[Any], size: int, loops: int) -> tuple[list[Any], list[str]]:
    tasks = [pool[i % len(pool)] for i in range(size)]
    completions = [env.gold_completion(task) for task in tasks]
    step = max(1, size // loops) if loops else size + 1
    for i in range(0, size, step)[:loops]:
        completions[i] = LOOP
    return tasks, completions


def _run(env: Any, tasks: list[Any], completions: list[str], lanes: int) -> tuple[float, dict[str, int]]:
    started = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        verdicts = list(pool.map(env.verifier.verify, tasks, completions))
    took = time.perf_counter() - started
    counts: dict[str, int] = {}
    for verdict in verdicts:
        counts[verdict.reason.value] = counts.get(verdict.reason.value, 0) + 1
    return took, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--loops", type=float, default=0.05, help="fraction of the batch that loops")
    parser.add_argument("--lanes", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    env = rlvr_envs.make("code-python", data=_rows(), timeout_s=10.0)
    calibrated = calibrate(env, repeats=3)
    if calibrated.failed:
        raise SystemExit(f"calibration failed: {calibrated.failed}")
    wall_only = [
        t.model_copy(update={"answer": {k: v for k, v in t.answer.items() if k != CPU_LIMIT_KEY}})
        for t in calibrated.tasks
    ]
    policies = {"wall": wall_only, "calibrated": calibrated.tasks}
    loops = max(1, round(args.batch * args.loops))
    print(f"load {os.getloadavg()[0]:.2f}, {args.batch} samples, {loops} loops, {args.lanes} lanes")
    for row in calibrated.rows:
        print(f"  {row['id']}: wall limit {row['limit_s']} s, cpu_limit_s {row.get(CPU_LIMIT_KEY)} s")
    for name, tasks in policies.items():
        clean, looped = _batch(env, tasks, args.batch, 0), _batch(env, tasks, args.batch, loops)
        ratios, clean_s, loops_s = [], [], []
        for _ in range(args.repeats):
            a, counts_clean = _run(env, *clean, args.lanes)
            b, counts_loops = _run(env, *looped, args.lanes)
            c, _ = _run(env, *looped, args.lanes)
            d, _ = _run(env, *clean, args.lanes)
            clean_s.append((a + d) / 2)
            loops_s.append((b + c) / 2)
            ratios.append(loops_s[-1] / clean_s[-1])
        if counts_clean != {"ok": args.batch} or counts_loops != {"ok": args.batch - loops, "timeout": loops}:
            print(f"  {name}: verdicts off: clean {counts_clean}, loops {counts_loops}")
        goal = f"  (goal <= {GOAL})" if name == "calibrated" else ""
        print(
            f"{name:>10}: clean {statistics.median(clean_s):.2f} s, loops {statistics.median(loops_s):.2f} s, "
            f"loops/clean {statistics.median(ratios):.2f}{goal}"
        )


if __name__ == "__main__":
    main()
