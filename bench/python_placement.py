"""The ``python`` tool's placement: a warm call in the episode's own process against the same call
pinned in a runtime session of the local pool (``placement="session"``, what a Ray pool uses on
each actor), through ``EpisodeEnv.call_tool`` (the checks and counters an adapter pays too).

The pinned session adds one pipe hop (episode -> pool worker -> sandbox). Target: a pinned warm
call still within the issue's 5 ms p50. Rounds alternate the two placements so that load
changes on a shared machine hit both alike.

    .venv/bin/python bench/python_placement.py [--calls 300] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import time

import rlvr_envs
from rlvr_code.tools.python_tool import PythonTool
from rlvr_envs.episodes import EpisodeEnv
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.types import Task

TASK = Task(id="t", prompt="What is 123 * 45?", answer="5535")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def warm_calls(pool: VerificationPool, placement: str, calls: int) -> list[float]:
    env = rlvr_envs.make(
        "math-arith",
        tools=[PythonTool(placement=placement)],
        pool=pool,
        isolation="inline",
        max_tool_calls=calls + 1,
    )
    if not isinstance(env, EpisodeEnv):  # tools= makes one; said for the type checker
        raise TypeError(f"expected an EpisodeEnv, got {type(env).__name__}")
    try:
        env.reset(options={"task": TASK})
        env.call_tool("python", {"code": "x = 0"})  # starts the interpreter (and the session)
        times = []
        for _ in range(calls):
            started = time.perf_counter()
            out = env.call_tool("python", {"code": "x += 1"})
            times.append(time.perf_counter() - started)
            if out.startswith("Error"):
                raise RuntimeError(out)
        return times
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.calls} warm calls per round")
    results: dict[str, list[float]] = {"process": [], "session": []}
    with VerificationPool(1) as pool:
        for _ in range(args.rounds):
            for placement in results:
                results[placement] += warm_calls(pool, placement, args.calls)
    for placement, times in results.items():
        print(
            f"{placement:8s} p50 {percentile(times, 0.5) * 1e3:6.2f} ms  p90 {percentile(times, 0.9) * 1e3:6.2f} ms  "
            f"p99 {percentile(times, 0.99) * 1e3:6.2f} ms"
        )


if __name__ == "__main__":
    main()
