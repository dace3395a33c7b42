"""Local process pool vs the Ray backend on one machine, and what that projects to 1-64 nodes.

    .venv/bin/python bench/ray_pool.py [--workers 2] [--repeats 3] [--code-max 4096]

For ``math-arith`` (a cheap verifier: the pool's own cost dominates) and ``code-humaneval``
(a sandboxed test run per sample), at batch sizes 1, 256, 1,024 and 4,096: per-call latency at batch 1
and throughput (verdicts/s) of ``VerificationPool(workers)`` and of ``RayVerificationPool``
with the same number of actors on a local Ray cluster started by this script, min/median/max
over repeats, plus the caller's CPU time per item on either path
(for Ray: the driver's), and the ratio at batch 1,024 beside its goal. From those measured costs
it prints projected cluster throughput for 1-64 nodes, with its assumptions.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rlvr_envs  # noqa: E402
from rlvr_envs.runtime.local.pool import VerificationPool  # noqa: E402

SIZES = (1, 256, 1024, 4096)
GOAL_BATCH, GOAL_RATIO = 1024, 0.70
"""Issue 30: the Ray backend at >= 70% of the local pool's throughput at batch 1024 on a cheap verifier."""


def workload(env_id: str, n: int) -> tuple[Any, list, list]:
    if env_id == "math-arith":
        env = rlvr_envs.make("math-arith", level=2)
        tasks = env.sample(min(n, 512), seed=0)
    else:
        env = rlvr_envs.make("code-humaneval", path=str(ROOT.parent / "shared" / "data" / "humaneval.jsonl"))
        tasks = list(env.tasks)
    batch = [tasks[i % len(tasks)] for i in range(n)]
    # Half gold, half wrong: both paths of the verifier run.
    completions = [
        env.gold_completion(t) if i % 2 == 0 else "I think the answer is \\boxed{-1}." for i, t in enumerate(batch)
    ]
    return env, batch, completions


def measure(pool, env, batch, completions, repeats: int) -> dict:
    verifier = env.verifier
    budget, cap = env.time_budget_s, env.max_completion_chars
    if len(batch) == 1:
        lat = []
        for _ in range(10):
            t0 = time.perf_counter()
            pool.map(verifier, batch, completions, timeout_s=budget, max_completion_chars=cap)
            lat.append(time.perf_counter() - t0)
        return {"lat": lat, "tput": [1 / x for x in lat]}
    tput, cpu = [], []
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        verdicts = pool.map(verifier, batch, completions, timeout_s=budget, max_completion_chars=cap)
        wall = time.perf_counter() - t0
        cpu.append((time.process_time() - c0) / len(batch))
        tput.append(len(batch) / wall)
        bad = [v for v in verdicts if v.reason.value in ("timeout", "verifier_error")]
        if bad:
            raise SystemExit(f"{len(bad)} infrastructure failures ({bad[0].details}): the benchmark is broken")
    return {"tput": tput, "cpu": cpu}


def fmt(xs: list[float], scale: float = 1.0, spec: str = ".0f") -> str:
    return "/".join(format(x * scale, spec) for x in (min(xs), statistics.median(xs), max(xs)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--code-max", type=int, default=4096, help="largest code-humaneval batch")
    parser.add_argument("--envs", default="math-arith,code-humaneval")
    args = parser.parse_args()

    import ray

    from rlvr_envs.runtime.ray.pool import RayVerificationPool

    # 127.0.0.2: Ray would map 127.0.0.1 to the external interface; keep the bench on loopback.
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.2")
    results: dict[tuple[str, str, int], dict] = {}
    item_bytes: dict[str, float] = {}
    try:
        for env_id in args.envs.split(","):
            sizes = [s for s in SIZES if env_id == "math-arith" or s <= args.code_max]
            env, _, _ = workload(env_id, 1)
            # Both pools live side by side and the repeats alternate between them, so a burst of
            # load from elsewhere on a shared machine hits both alike.
            pools: dict[str, Any] = {
                "local": VerificationPool(args.workers),
                "ray": RayVerificationPool(args.workers, num_cpus=1, grace_s=120),
            }
            try:
                for pool in pools.values():
                    pool.preload(env.verifier)
                for n in sizes:
                    env, batch, completions = workload(env_id, n)
                    for pool in pools.values():
                        measure(pool, env, batch[: 2 * args.workers], completions[: 2 * args.workers], 1)  # warm
                    for _ in range(args.repeats):
                        for backend, pool in pools.items():
                            got = measure(pool, env, batch, completions, 1)
                            into = results.setdefault((env_id, backend, n), {})
                            for k, v in got.items():
                                into.setdefault(k, []).extend(v)
                    print(f"  measured {env_id} batch {n}", file=sys.stderr, flush=True)
                item_bytes[env_id] = statistics.mean(
                    len(pickle.dumps((t, c))) for t, c in zip(batch[:64], completions[:64])
                )
            finally:
                for pool in pools.values():
                    pool.close()
    finally:
        ray.shutdown()

    print(f"\nlocal pool vs Ray backend, {args.workers} workers/actors on one machine ({os.cpu_count()} cores)")
    print("throughput in verdicts/s as min/median/max over repeats; batch 1 shows per-call latency\n")
    print(f"{'env':<16}{'batch':>6}  {'local':>22}  {'ray':>22}  {'ray/local':>9}  {'caller CPU/item local, ray':>27}")
    print("-" * 109)
    goals: list[str] = []
    for env_id in args.envs.split(","):
        for n in SIZES:
            if (env_id, "local", n) not in results:
                continue
            lo, ry = results[(env_id, "local", n)], results[(env_id, "ray", n)]
            ratio = statistics.median(ry["tput"]) / statistics.median(lo["tput"])
            if n == 1:
                left, right = fmt(lo["lat"], 1e3, ".2f") + " ms", fmt(ry["lat"], 1e3, ".2f") + " ms"
                cpu = "-"
            else:
                left, right = fmt(lo["tput"]), fmt(ry["tput"])
                cpu = f"{statistics.median(lo['cpu']) * 1e6:.0f} us, {statistics.median(ry['cpu']) * 1e6:.0f} us"
            print(f"{env_id:<16}{n:>6}  {left:>22}  {right:>22}  {ratio:>8.0%}  {cpu:>27}")
            if env_id == "math-arith" and n == GOAL_BATCH:
                met = "met" if ratio >= GOAL_RATIO else "NOT met"
                goals.append(
                    f"goal: Ray >= {GOAL_RATIO:.0%} of the local pool at batch {n} on math-arith: {ratio:.0%} ({met})"
                )
    print("\n".join(goals))

    for env_id in args.envs.split(","):
        if (env_id, "ray", 1) in results:
            lo, ry = results[(env_id, "local", 1)]["lat"], results[(env_id, "ray", 1)]["lat"]
            extra = (statistics.median(ry) - statistics.median(lo)) * 1e3
            print(
                f"per-call overhead of the Ray path at batch 1, {env_id}: {extra:+.2f} ms (median latency difference)"
            )
    print("\nprojected throughput on N nodes (verdicts/s), from the batch-4096 figures above")
    print("assumptions: each node runs as many actors as this machine ran workers and verifies as fast as")
    print("the Ray path did here; one driver process dispatches everything (its CPU per item, measured")
    print("above, is the ceiling 1/cpu); chunks of 64 items travel inline in Ray's RPCs (under 100 KiB, so")
    print("the object store is not on the path unless completions are ~1.5 KiB+ each); the sampler is not")
    print("included: for `profile`, generation on the sampler's GPUs is usually the bound (not measured here).")
    nodes = (1, 2, 4, 8, 16, 32, 64)
    print(f"\n{'env':<16}" + "".join(f"{n:>9}" for n in nodes) + "   bound first by")
    for env_id in args.envs.split(","):
        big = max(n for n in SIZES if (env_id, "ray", n) in results)
        ry = results[(env_id, "ray", big)]
        per_node = statistics.median(ry["tput"])
        driver = 1 / statistics.median(ry["cpu"])
        chunk_kib = 64 * item_bytes.get(env_id, 0) / 1024
        row, first = [], None
        for n in nodes:
            value = min(n * per_node, driver)
            if first is None and n * per_node > driver:
                first = n
            row.append(value)
        bound = f"the driver from ~{first} nodes (~{driver:,.0f}/s)" if first else "the nodes (driver not reached)"
        print(f"{env_id:<16}" + "".join(f"{v:>9,.0f}" for v in row) + f"   {bound}; chunk ~{chunk_kib:.0f} KiB")


if __name__ == "__main__":
    main()
