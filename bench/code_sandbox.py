"""Benchmark: the code family's sandbox against a naive ``subprocess.run([python, file])`` per sample.

Both run the same samples in the same process, one after the other: every HumanEval canonical
solution plus a buggy variant of each (the function's result perturbed), so half should pass.
Printed: samples/s, the throughput ratio, p50/p99 latency per sample, and how many of each kind
passed (both methods must agree with the labels, or the speed means nothing).

    .venv/bin/python bench/code_sandbox.py                 # HumanEval, 2 x 164 samples
    .venv/bin/python bench/code_sandbox.py --mbpp          # also all 974 MBPP canonical solutions
    .venv/bin/python bench/code_sandbox.py --leftovers     # what a program leaves behind costs the next one

The naive runner has no isolation at all (it runs the sample as the calling user, with the
caller's network and files); the sandbox runs with full isolation (bubblewrap namespaces, a
separate uid, rlimits, the two-process judge). Both use the same number of concurrent lanes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"

BUG = """

_rlvr_bench_original = {entry}


def {entry}(*args, **kwargs):
    result = _rlvr_bench_original(*args, **kwargs)
    if isinstance(result, bool):
        return not result
    if isinstance(result, (int, float)):
        return result + 1
    if isinstance(result, str):
        return result + "x"
    if isinstance(result, (list, tuple)):
        return type(result)(list(result) + [None])
    return "wrong"
"""


def humaneval_samples(path: Path, limit: int | None) -> list[tuple[dict, str, bool]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = rows[:limit] if limit else rows
    samples = []
    for row in rows:
        program = row["prompt"] + row["canonical_solution"]
        samples.append((row, program, True))
        samples.append((row, program + BUG.format(entry=row["entry_point"]), False))
    return samples


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_naive(
    samples: list[tuple[dict, str, bool]], lanes: int, timeout_s: float, command: list[str]
) -> tuple[list, float]:
    workdir = Path(tempfile.mkdtemp(prefix="rlvr-bench-naive-"))

    def one(item: tuple[int, tuple[dict, str, bool]]) -> tuple[bool, float]:
        index, (row, program, _) = item
        start = time.perf_counter()
        path = workdir / f"sample_{index}.py"
        path.write_text(f"{program}\n\n{row['test']}\n\ncheck({row['entry_point']})\n", encoding="utf-8")
        try:
            done = subprocess.run([*command, str(path)], capture_output=True, timeout=timeout_s)
            passed = done.returncode == 0
        except subprocess.TimeoutExpired:
            passed = False
        path.unlink(missing_ok=True)
        return passed, time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        results = list(pool.map(one, enumerate(samples)))
    elapsed = time.perf_counter() - start
    os.rmdir(workdir)
    return results, elapsed


def run_sandbox(samples: list[tuple[dict, str, bool]], lanes: int, timeout_s: float) -> tuple[list, float, dict]:
    from rlvr_code.envs import humaneval_task
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier

    verifier = CodeVerifier(timeout_s=timeout_s)
    sandbox = LocalSandbox(workers=lanes)
    verifier.sandbox = lambda: sandbox  # type: ignore[method-assign]
    tasks = {row["task_id"]: humaneval_task(row) for row, _, _ in samples}

    def one(item: tuple[dict, str, bool]) -> tuple[bool, float]:
        row, program, _ = item
        start = time.perf_counter()
        verdict = verifier.verify(tasks[row["task_id"]], f"```python\n{program}\n```")
        return verdict.passed, time.perf_counter() - start

    with ThreadPoolExecutor(lanes) as pool:  # start the workers outside the timed run
        list(pool.map(one, samples[: 2 * lanes]))
    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        results = list(pool.map(one, samples))
    elapsed = time.perf_counter() - start
    stats = dict(sandbox.stats)
    sandbox.close()
    return results, elapsed, stats


def summary_row(name: str, lanes: int, samples: list, results: list, elapsed: float) -> dict:
    latencies = [latency for _, latency in results]
    good = sum(1 for (passed, _), (_, _, label) in zip(results, samples) if passed and label)
    bad = sum(1 for (passed, _), (_, _, label) in zip(results, samples) if passed and not label)
    return {
        "method": name,
        "lanes": lanes,
        "samples": len(results),
        "per_s": len(results) / elapsed,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "canonical_passed": f"{good}/{sum(1 for s in samples if s[2])}",
        "buggy_passed": f"{bad}/{sum(1 for s in samples if not s[2])}",
    }


def run_mbpp(path: Path, lanes: int, timeout_s: float) -> None:
    from rlvr_code.envs import mbpp_task
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    verifier = CodeVerifier(timeout_s=timeout_s)
    sandbox = LocalSandbox(workers=lanes)
    verifier.sandbox = lambda: sandbox  # type: ignore[method-assign]

    def one(row: dict) -> tuple[int, bool, str]:
        task = mbpp_task(row)
        verdict = verifier.verify(task, f"```python\n{row['code']}\n```")
        return row["task_id"], verdict.passed, verdict.reason.value

    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        results = list(pool.map(one, rows))
    elapsed = time.perf_counter() - start
    sandbox.close()
    failed = [(tid, reason) for tid, passed, reason in results if not passed]
    print(
        f"\nMBPP canonical solutions through the sandbox: {len(results) - len(failed)}/{len(results)} passed "
        f"in {elapsed:.1f} s ({len(results) / elapsed:.1f}/s, per-sample limit {timeout_s:g} s)"
    )
    if failed:
        print(f"  failed: {failed[:20]}")


LEFTOVERS = {
    "nothing (floor: gold after gold)": "def f():\n    return 1\n",
    "2,000 files of 4 KiB": "def f():\n    for i in range(2000):\n        open(str(i), 'w').write('x' * 4096)\n    return 0\n",
    "3,000 nested directories": "import os\ndef f():\n    for _ in range(3000):\n        os.mkdir('d')\n"
    "        os.chdir('d')\n    return 0\n",
    "directory flood (1M attempted)": "import os\ndef f():\n    try:\n        for i in range(1_000_000):\n"
    "            os.mkdir(str(i))\n    except OSError:\n        pass\n    return 0\n",
}


def run_leftovers(repeats: int, timeout_s: float) -> None:
    """Each kind of leftover, then a gold sample on the same worker: the gold one's latency must
    not depend on what the previous sample left (cleanup is bounded and outside its budget)."""
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier
    from rlvr_envs.types import Task

    task = Task(
        id="leftovers", prompt="p", answer={"format": "asserts", "tests": ["assert f() == 1"], "solution_names": ["f"]}
    )
    gold = "```python\ndef f():\n    return 1\n```"
    verifier = CodeVerifier(timeout_s=timeout_s)
    sandbox = LocalSandbox(workers=1)
    verifier.sandbox = lambda: sandbox  # type: ignore[method-assign]
    verifier.verify(task, gold)  # start the worker outside the timings
    print(
        f"\nLeftovers, then a gold sample on the same worker ({repeats} repeats, min/median/max ms; "
        f"inode bound: {getattr(sandbox, 'work_inodes', None)})\n"
    )
    header = f"{'left behind':<34} {'that sample':>22} {'next gold sample':>22} {'verdicts':>18}"
    print(header)
    print("-" * len(header))
    for name, program in LEFTOVERS.items():
        own, after, reasons = [], [], set()
        for _ in range(repeats):
            start = time.perf_counter()
            verdict = verifier.verify(task, f"```python\n{program}```")
            own.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            next_verdict = verifier.verify(task, gold)
            after.append(1000 * (time.perf_counter() - start))
            reasons.add(f"{verdict.reason.value}/{next_verdict.reason.value}")

        def spread(values: list[float]) -> str:
            return f"{min(values):.0f}/{statistics.median(values):.0f}/{max(values):.0f}"

        print(f"{name:<34} {spread(own):>22} {spread(after):>22} {','.join(sorted(reasons)):>18}")
    print(f"\nSandbox stats: {sandbox.stats}")
    sandbox.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with humaneval.jsonl / mbpp.jsonl")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N HumanEval tasks")
    parser.add_argument("--lanes", type=int, default=os.cpu_count() or 2, help="concurrent samples (both methods)")
    parser.add_argument("--timeout", type=float, default=20.0, help="per-sample limit in seconds")
    parser.add_argument("--mbpp", action="store_true", help="also run all MBPP canonical solutions")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument(
        "--leftovers",
        action="store_true",
        help="only measure what leftovers (files, deep nesting, inode floods) cost the next sample",
    )
    parser.add_argument("--repeats", type=int, default=5, help="repeats per kind of leftover")
    args = parser.parse_args(argv)
    if args.leftovers:
        run_leftovers(args.repeats, min(args.timeout, 10.0))
        return 0

    samples = humaneval_samples(args.data / "humaneval.jsonl", args.limit)
    # The baseline is the caller's interpreter; a lean system interpreter is shown too,
    # so the speed-up is not read off a slow baseline alone.
    baselines = [[sys.executable]]
    if os.path.exists("/usr/bin/python3"):
        baselines.append(["/usr/bin/python3", "-I", "-S"])
    rows = []
    for command in baselines:
        results, seconds = run_naive(samples, args.lanes, args.timeout, command)
        label = f"naive subprocess.run([{' '.join([Path(command[0]).name, *command[1:]])}, file])"
        rows.append(summary_row(label, args.lanes, samples, results, seconds))
    boxed, boxed_s, stats = run_sandbox(samples, args.lanes, args.timeout)
    sandbox_row = summary_row("rlvr_code LocalSandbox (bwrap, full isolation)", args.lanes, samples, boxed, boxed_s)
    rows.append(sandbox_row)
    print(
        f"HumanEval canonical + buggy variants, {len(samples)} samples, {args.lanes} lanes, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end\n"
    )
    header = (
        f"{'method':<52} {'lanes':>5} {'samples/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'canonical ok':>13} {'buggy ok':>9} {'sandbox x':>9}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['method']:<52} {row['lanes']:>5} {row['per_s']:>10.1f} {row['p50_ms']:>8.1f} "
            f"{row['p99_ms']:>8.1f} {row['canonical_passed']:>13} {row['buggy_passed']:>9} "
            f"{sandbox_row['per_s'] / row['per_s']:>8.1f}x"
        )
    print(f"\n'sandbox x' = sandbox throughput / this row's throughput. Sandbox stats: {stats}")
    if args.json:
        print(json.dumps(rows, indent=2))
    if args.mbpp:
        run_mbpp(args.data / "mbpp.jsonl", args.lanes, max(args.timeout, 60.0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
