"""What the verification pool costs, against its floor, all measured in one run over repeats.

    .venv/bin/python bench/pool_overhead.py [--repeats 5] [--quick] [--skip-families]

Every row prints min / median / max over the repeats, and its ratio to the peer or floor
measured in the same repeat (so a busy shared machine slows both sides alike):

1. per-call overhead of a trivial verifier (answer extraction + compare): pool minus a direct
   in-process call, at batch 16 / 256 / 1024, one and two workers (goal: <= 15 us at >= 256);
2. a second worker on a CPU-bound verifier (1 ms of pure Python per call, batch 256), against
   the same work split over two plain processes (the most this machine gives right now; goal 1.6x);
3. a math worker replacing one that timed out: time from the timeout verdict to the next verdict,
   forked from the zygote vs spawned (goal: <= 0.5 s), and a fresh pool's first start;
4. memory per worker (USS, RSS, PSS from /proc/PID/smaps_rollup) for math workers, both ways;
5. worst case per call of the cheap families' verifiers on hostile input at the size cap, run
   through the pool under its budget (what the ``bounded_cheap`` declaration rests on).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _pool_verifiers import CpuVerifier, burn

from rlvr_envs.pool import VerificationPool
from rlvr_envs.testing import ExactAnswerVerifier
from rlvr_envs.types import Task


def mmm(values: Sequence[float], scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    v = sorted(x * scale for x in values)
    return "/".join(fmt.format(x) for x in (v[0], statistics.median(v), v[-1]))


def _direct_calls(verifier: Callable[[Task, str], Any], tasks: Sequence[Task], completions: Sequence[str]) -> list[Any]:
    return [verifier(a, b) for a, b in zip(tasks, completions)]


def _first_tasks(env: Any, n: int) -> list[Task]:
    """The tasks ``reset(seed=0..n-1)`` draws."""
    out: list[Task] = []
    for i in range(n):
        env.reset(seed=i)
        out.append(env.current_task)
    return out


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    print(f"\n## {title}\n")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _cpu_s(pid: int) -> float:
    """CPU time a process has used (ns resolution, from /proc/PID/schedstat), all threads."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="utf-8") as fh:
            return int(fh.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _pool_cpu_s(pool: VerificationPool) -> float:
    return _cpu_s(os.getpid()) + sum(_cpu_s(pid) for pid in pool.worker_pids())


def overhead(repeats: int, sizes: Sequence[int]) -> None:
    verifier = ExactAnswerVerifier()
    n = max(sizes)
    tasks = [Task(id=str(i), prompt=f"{i}+{i}?", answer=2 * i) for i in range(n)]
    completions = [f"Some reasoning first. The total is \\boxed{{{2 * i}}}." for i in range(n)]
    results: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}
    with VerificationPool(1) as one, VerificationPool(2) as two:
        for pool in (one, two):
            pool.preload(verifier)
        for _ in range(repeats):
            for size in sizes:
                t, c = tasks[:size], completions[:size]
                cpu0 = _cpu_s(os.getpid())
                direct = timed(functools.partial(_direct_calls, verifier, t, c)) / size
                direct_cpu = (_cpu_s(os.getpid()) - cpu0) / size
                for workers, pool in ((1, one), (2, two)):
                    cpu0 = _pool_cpu_s(pool)
                    per_call = timed(functools.partial(pool.map, verifier, t, c)) / size
                    cpu = (_pool_cpu_s(pool) - cpu0) / size
                    results.setdefault((size, workers), []).append((per_call, direct, cpu, direct_cpu))
    rows = []
    for (size, workers), runs in sorted(results.items()):
        rows.append(
            [
                str(size),
                str(workers),
                mmm([r[1] for r in runs], 1e6),
                mmm([r[0] for r in runs], 1e6),
                mmm([r[0] - r[1] for r in runs], 1e6),
                mmm([r[0] / r[1] for r in runs], fmt="{:.1f}x"),
                mmm([r[2] - r[3] for r in runs], 1e6),
            ]
        )
    table(
        "1. per-call overhead, trivial verifier (us; min/median/max)",
        [
            "batch",
            "workers",
            "direct",
            "pool.map",
            "wall overhead (pool - direct)",
            "pool / direct",
            "CPU overhead (all processes)",
        ],
        rows,
    )
    print(
        "\nwall overhead on a shared machine counts waiting for a core; CPU overhead is what the pool"
        "\nadds in all its processes together (parent threads + workers), per call."
    )


def scaling(repeats: int, batch: int, ms: float) -> None:
    verifier = CpuVerifier(ms)
    tasks = [Task(id=str(i), prompt="", answer=0) for i in range(batch)]
    completions = [""] * batch
    ratios, floors, ones, twos = [], [], [], []
    with VerificationPool(1) as one, VerificationPool(2) as two, ProcessPoolExecutor(2) as plain:
        for pool in (one, two):
            pool.preload(verifier)
        list(plain.map(burn, [ms, ms], [1, 1]))
        for _ in range(repeats):
            t1 = timed(lambda: one.map(verifier, tasks, completions))
            t2 = timed(lambda: two.map(verifier, tasks, completions))
            s1 = timed(lambda: burn(ms, batch))
            s2 = timed(lambda: list(plain.map(burn, [ms, ms], [batch // 2, batch - batch // 2])))
            ones.append(t1)
            twos.append(t2)
            ratios.append(t1 / t2)
            floors.append(s1 / s2)
    table(
        f"2. a second worker, CPU-bound verifier ({ms:g} ms/call, batch {batch}; min/median/max)",
        ["1 worker (s)", "2 workers (s)", "speed-up 1->2", "two plain processes (machine ceiling)"],
        [[mmm(ones, fmt="{:.2f}"), mmm(twos, fmt="{:.2f}"), mmm(ratios, fmt="{:.2f}x"), mmm(floors, fmt="{:.2f}x")]],
    )


def restart(repeats: int) -> None:
    try:
        from _pool_verifiers import MathHangVerifier
    except ImportError:
        print("\n## 3. restart after a timeout: skipped (math family not installed)")
        return
    task = Task(id="t", prompt="1+1?", answer="2")
    rows = []
    serve: dict[str, list[float]] = {}
    cold: dict[str, list[float]] = {}
    for _ in range(repeats):
        for start in ("zygote", "spawn"):
            verifier = MathHangVerifier()
            with VerificationPool(1, start=start) as pool:
                cold.setdefault(start, []).append(timed(functools.partial(pool.preload, verifier)))
                hung = pool.submit(verifier, task, "hang", timeout_s=0.2).result()
                if hung.reason.value != "timeout":
                    raise SystemExit(f"expected a timeout, got {hung}")
                verdict = None

                def serve_one(pool: VerificationPool = pool, v: MathHangVerifier = verifier) -> None:
                    nonlocal verdict
                    verdict = pool.submit(v, task, "\\boxed{2}").result()

                serve.setdefault(start, []).append(timed(serve_one))
                if verdict is None or not verdict.passed:
                    raise SystemExit(f"the replacement worker got it wrong: {verdict}")
    for start in ("zygote", "spawn"):
        rows.append(
            [
                start,
                mmm(serve[start], fmt="{:.3f}"),
                mmm([s / z for s, z in zip(serve["spawn"], serve[start])], fmt="{:.1f}x"),
                mmm(cold[start], fmt="{:.2f}"),
            ]
        )
    table(
        "3. math: next verdict after a timeout killed the worker (s; min/median/max)",
        ["start", "timeout -> next verdict", "spawn / this", "fresh pool, preload"],
        rows,
    )


def _rollup(pid: int) -> dict[str, int]:
    fields: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 3 and parts[2] == "kB":
                    fields[parts[0].rstrip(":")] = int(parts[1])
    except OSError:
        pass
    return fields


def memory(workers: int = 2) -> None:
    try:
        from _pool_verifiers import MathHangVerifier
    except ImportError:
        print("\n## 4. memory: skipped (math family not installed)")
        return
    task = Task(id="t", prompt="1+1?", answer="2")
    rows = []
    for start in ("zygote", "spawn"):
        verifier = MathHangVerifier()
        with VerificationPool(workers, start=start) as pool:
            pool.preload(verifier)
            pool.map(verifier, [task] * 64, ["\\boxed{2}", "\\frac{4}{2}", "x^2", "\\sqrt{4}"] * 16)
            for pid in pool.worker_pids():
                r = _rollup(pid)
                uss = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
                rows.append(
                    [start, "worker", str(uss // 1024), str(r.get("Rss", 0) // 1024), str(r.get("Pss", 0) // 1024)]
                )
            if pool._zygote is not None:
                r = _rollup(pool._zygote.proc.pid)
                uss = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
                rows.append(
                    [start, "zygote", str(uss // 1024), str(r.get("Rss", 0) // 1024), str(r.get("Pss", 0) // 1024)]
                )
    table(
        f"4. memory of math workers, {workers} workers (MB, after preload + 64 calls)",
        ["start", "process", "USS", "RSS", "PSS"],
        rows,
    )


def families(repeats: int) -> None:
    import rlvr_envs

    cap = 2_000_000
    hostile = {
        "words": "word " * (cap // 5),
        "one line, no spaces": "a" * cap,
        "cjk": "数学题答案" * (cap // 5),
        "nested braces": "\\boxed{" * (cap // 8),
        "markdown": ("# title\n* item **bold** `code`\n" * (cap // 32))[:cap],
        "json-ish": ('{"a": [' * (cap // 8))[:cap],
    }
    specs: list[tuple[str, dict[str, Any]]] = [
        ("ifeval-v0", {"data": "/work/shared/data/ifeval_input_data.jsonl"}),
        ("rg-chain_sum", {}),
        ("math-arith-v0", {"level": 3}),
    ]
    rows = []
    with VerificationPool(1) as pool:
        for env_id, kwargs in specs:
            try:
                env = rlvr_envs.make(env_id, pool=pool, **kwargs)
            except Exception as exc:  # family or data missing: say so
                rows.append([env_id, "-", "-", "-", f"skipped: {type(exc).__name__}"])
                continue
            tasks = _first_tasks(env, 4)
            budget = env.time_budget_s
            worst: dict[str, float] = {}
            reasons: dict[str, set[str]] = {}
            for _ in range(repeats):
                for name, text in hostile.items():
                    verdicts = env.verify_batch(tasks, [text] * len(tasks))
                    worst[name] = max(worst.get(name, 0.0), *(v.elapsed_s for v in verdicts))
                    reasons.setdefault(name, set()).update(v.reason.value for v in verdicts)
            name = max(worst, key=worst.__getitem__)
            timeouts = sum("timeout" in r for r in reasons.values())
            rows.append(
                [
                    env_id,
                    f"{budget:g}",
                    f"{worst[name] * 1000:.0f} ({name})",
                    f"{worst[name] / budget:.2f}",
                    f"{timeouts} input kinds timed out",
                ]
            )
    table(
        f"5. cheap families: worst call on hostile input at the {cap:,}-char cap (over {repeats} repeats)",
        ["env", "budget (s)", "worst call (ms, input)", "worst / budget", "note"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller batches, fewer repeats (a smoke run)")
    parser.add_argument("--skip-families", action="store_true")
    parser.add_argument("--sections", default="12345", help="which sections to run, e.g. 13")
    args = parser.parse_args()
    repeats = 2 if args.quick else args.repeats
    sections = set(args.sections) - ({"5"} if args.skip_families else set())
    print(f"# pool bench: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, {repeats} repeats")
    if "1" in sections:
        overhead(repeats, (16, 256) if args.quick else (16, 256, 1024))
    if "2" in sections:
        scaling(repeats, 64 if args.quick else 256, 1.0)
    if "3" in sections:
        restart(repeats)
    if "4" in sections:
        memory()
    if "5" in sections:
        families(1 if args.quick else min(repeats, 2))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
