"""Benchmark: compiled tests relayed between the sandbox's workers (``compile_relay``), on and off.

Each worker's warm judge compiles a task's tests the first time that worker meets the task;
with the relay, a worker that meets a task another worker's judge already built adopts the
build instead. Two sandboxes of ``--lanes`` workers each, one with the relay turned off, both
started with each HumanEval task seen once on whichever worker was free (so each worker has
met about 1/lanes of them), then timed on every task, alternating which goes first; per
repeat, each stage's CPU a sample (``code_sandbox_cpu.measure``) and how many builds each
sandbox's judges made and adopted. The first repeat is where the relay shows: after it every
worker has met every task either way.

    .venv/bin/python bench/code_sandbox_relay.py --repeats 3
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def started(rows: list[dict], lanes: int, relay: bool) -> Any:
    from code_sandbox import Sandbox  # bench/ is the script's folder

    from rlvr_code.envs import humaneval_task
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier

    method = Sandbox.__new__(Sandbox)  # its run() and measure() without its warm-up of every worker
    method.lanes, method.name = lanes, f"relay {'on' if relay else 'off'}"
    method.verifier = CodeVerifier(timeout_s=20.0)
    method.box = LocalSandbox(workers=lanes)
    if not relay:
        method.box._relay.outgoing = lambda job, worker, task: job
    method.verifier.sandbox = lambda: method.box
    method.tasks = {row["task_id"]: humaneval_task(row) for row in rows}
    method.run([(row, row["prompt"] + row["canonical_solution"], True) for row in rows])
    return method


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--lanes", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from code_sandbox import humaneval_rows, workloads
    from code_sandbox_cpu import measure

    rows = humaneval_rows(args.data / "humaneval.jsonl", None)
    samples = workloads(rows)["HumanEval canonical"]
    methods = [started(rows, args.lanes, True), started(rows, args.lanes, False)]
    print(f"HumanEval canonical, {args.lanes} lanes, load average {os.getloadavg()[0]:.1f}; ms of CPU a sample")
    for repeat in range(args.repeats):
        for method in methods if repeat % 2 == 0 else methods[::-1]:
            row = measure(method, samples)
            stats = method.box.stats
            print(
                f"repeat {repeat} {method.name:<10} samples/s {row['samples/s']:7.1f}  warm judge "
                f"{row.get('warm judge', 0.0):5.2f}  host {row['host']:5.2f}  all {row['all']:5.2f}  "
                f"judge builds {stats['judge_builds']:4d}  adopted {stats['relayed_builds']:4d}"
            )
    for method in methods:
        method.box.close()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
