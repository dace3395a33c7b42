"""Benchmark: what infinite loops cost a batch under the fixed 10 s limit and under calibrated limits.

A batch of HumanEval canonical solutions (cycled to ``--batch`` samples), and the same batch with
``--loops`` of them (5% by default, evenly spaced) replaced by ``while True: pass``, each run
under:

* **fixed**: the tasks as loaded (no per-task limit), the verifier's global ``timeout_s`` (10 s);
* **wall**: the tasks after ``rlvr_code.limits.calibrate`` with only their wall limit (k x reference
  median, floor, ceiling; the calibration itself runs once, before and outside the timings);
* **calibrated**: the same tasks with their CPU budget per run too (``cpu_limit_s``: cpu_factor x
  the reference's CPU, CPU floor), as ``calibrate`` stores them.

``--lanes`` samples run at a time (threads over one verifier whose sandbox has that many workers).
All batches run in one process; each repeat runs, per policy, its clean batch, its loops batch
twice, and its clean batch again (a load that drifts meanwhile weighs on both alike), and a
batch's time in that repeat is the mean of its two runs. Printed: wall seconds per batch
(median over repeats), verdict counts (every clean sample must pass and every loop must time out,
or the timing means nothing), and each loops/clean ratio beside the goal (calibrated <= 1.5x): the
median over repeats of each repeat's loops batch over its clean batch, run back to back.

    .venv/bin/python bench/code_limits.py                        # 164 samples, 5% loops, 2 lanes
    .venv/bin/python bench/code_limits.py --batch 512 --repeats 3
    .venv/bin/python bench/code_limits.py --skip-fixed --repeats 5   # without the 10 s loops (minutes)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import rlvr_envs
from rlvr_code.limits import CPU_LIMIT_KEY, LIMIT_KEY, LimitPolicy, calibrate

GOAL = 1.5
LOOP = "```python\ndef {name}(*args, **kwargs):\n    while True:\n        pass\n```"
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "humaneval.jsonl"


def _batch(tasks: list, size: int, loop_fraction: float) -> tuple[list, list[str], list[str]]:
    """Tasks, clean completions, and completions with every 1/fraction-th one an infinite loop."""
    chosen = [tasks[i % len(tasks)] for i in range(size)]
    clean = [f"```python\n{t.answer['canonical_solution']}\n```" for t in chosen]
    loops = list(clean)
    count = round(size * loop_fraction)
    for k in range(count):
        i = int((k + 0.5) * size / count)
        loops[i] = LOOP.format(name=chosen[i].answer["entry_point"])
    return chosen, clean, loops


def _run(verifier, tasks: list, completions: list[str], lanes: int) -> tuple[float, dict[str, int]]:
    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        measured = list(pool.map(verifier.verify_measured, tasks, completions))
    took = time.perf_counter() - start
    counts: dict[str, int] = {}
    for task, completion, (verdict, cpu) in zip(tasks, completions, measured):
        counts[verdict.reason.value] = counts.get(verdict.reason.value, 0) + 1
        if not verdict.passed and LOOP.format(name=task.answer.get("entry_point")) != completion:
            # An honest sample failed: which limit ended it (the CPU the sandbox measured against both).
            print(
                f"  honest sample failed: {task.id} {verdict.reason.value}, CPU {cpu} s of budget "
                f"{task.answer.get(CPU_LIMIT_KEY)}, wall limit {task.answer.get(LIMIT_KEY)}",
                file=sys.stderr,
            )
    return took, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("RLVR_HUMANEVAL", str(DEFAULT_DATA)))
    parser.add_argument("--batch", type=int, default=164)
    parser.add_argument("--loop-fraction", type=float, default=0.05)
    parser.add_argument("--lanes", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--calibration-repeats", type=int, default=3)
    parser.add_argument("--factor", type=float, default=LimitPolicy.factor)
    parser.add_argument("--floor", type=float, default=LimitPolicy.floor_s)
    parser.add_argument("--cpu-factor", type=float, default=LimitPolicy.cpu_factor)
    parser.add_argument("--cpu-floor", type=float, default=LimitPolicy.cpu_floor_s)
    parser.add_argument(
        "--skip-fixed", action="store_true", help="leave out the fixed 10 s limit (its loops take minutes)"
    )
    args = parser.parse_args(argv)

    env = rlvr_envs.make("code-humaneval", data=args.data, workers=args.lanes)
    verifier: Any = env.verifier  # a CodeVerifier (its timeout_s is the fixed limit)
    fixed_tasks = list(env.tasks)
    start = time.perf_counter()
    policy = LimitPolicy(
        factor=args.factor,
        floor_s=args.floor,
        ceiling_s=verifier.timeout_s,
        cpu_factor=args.cpu_factor,
        cpu_floor_s=args.cpu_floor,
    )
    calibration = calibrate(env, fixed_tasks, repeats=args.calibration_repeats, policy=policy)
    took = time.perf_counter() - start
    if calibration.failed:
        print(f"calibration: references failed: {[r['id'] for r in calibration.failed]}", file=sys.stderr)
        return 1
    limits = sorted(t.answer[LIMIT_KEY] for t in calibration.tasks)
    cpu = sorted(t.answer.get(CPU_LIMIT_KEY) or t.answer[LIMIT_KEY] for t in calibration.tasks)
    print(
        f"calibration: {len(limits)} tasks x {args.calibration_repeats} runs in {took:.1f} s; "
        f"limits min {limits[0]} median {limits[len(limits) // 2]} max {limits[-1]} s "
        f"(factor {policy.factor}, floor {policy.floor_s}, ceiling {policy.ceiling_s}); "
        f"CPU budgets min {cpu[0]} median {cpu[len(cpu) // 2]} max {cpu[-1]} s "
        f"(factor {policy.cpu_factor}, floor {policy.cpu_floor_s})"
    )
    wall_only = [
        t.model_copy(update={"answer": {k: v for k, v in t.answer.items() if k != CPU_LIMIT_KEY}})
        for t in calibration.tasks
    ]
    print(
        f"load before: {os.getloadavg()[0]:.2f}; batch {args.batch}, loops {args.loop_fraction:.0%}, lanes {args.lanes}"
    )

    batches = {}
    policies = [("fixed", fixed_tasks)] * (not args.skip_fixed) + [
        ("wall", wall_only),
        ("calibrated", calibration.tasks),
    ]
    for name, tasks in policies:
        chosen, clean, loops = _batch(tasks, args.batch, args.loop_fraction)
        batches[(name, "clean")] = (chosen, clean)
        batches[(name, "loops")] = (chosen, loops)
    _run(verifier, *batches[("wall", "clean")], args.lanes)  # warm the sandbox workers, untimed

    times: dict[tuple[str, str], list[float]] = {key: [] for key in batches}
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for _ in range(args.repeats):
        for name, _tasks in policies:
            # clean, loops, loops, clean: a load that drifts during the repeat weighs on both alike.
            spent = {"clean": 0.0, "loops": 0.0}
            for kind in ("clean", "loops", "loops", "clean"):
                seconds, counts[(name, kind)] = _run(verifier, *batches[(name, kind)], args.lanes)
                spent[kind] += seconds / 2
            for kind, seconds in spent.items():
                times[(name, kind)].append(seconds)

    n_loops = round(args.batch * args.loop_fraction)
    ok = True
    print(f"\n{'limits':<11} {'batch':<6} {'wall s (median)':>16}  verdicts")
    for key, values in times.items():
        expected = {"ok": args.batch} if key[1] == "clean" else {"ok": args.batch - n_loops, "timeout": n_loops}
        agree = counts[key] == expected
        ok &= agree
        print(
            f"{key[0]:<11} {key[1]:<6} {statistics.median(values):>16.2f}  {counts[key]}{'' if agree else ' (WRONG)'}"
        )
    print()
    notes = {"fixed": "(the old default)", "wall": "(wall limit only: before the CPU budget)"}
    for name, _tasks in policies:
        # Each repeat's loops batches over its own clean batches (clean, loops, loops, clean).
        paired = [loops / clean for loops, clean in zip(times[(name, "loops")], times[(name, "clean")])]
        ratio = statistics.median(paired)
        of_medians = statistics.median(times[(name, "loops")]) / statistics.median(times[(name, "clean")])
        goal = notes.get(name) or f"goal <= {GOAL}x: {'met' if ratio <= GOAL else 'NOT met'}"
        print(
            f"loops/clean, {name:<10}: {ratio:5.2f}x  {goal}; per repeat {[round(r, 2) for r in paired]}, "
            f"of the medians {of_medians:.2f}x"
        )
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
