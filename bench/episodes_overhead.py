"""What the episode runner adds to an env's own reset/step, against the single-turn env in the same run.

    .venv/bin/python bench/episodes_overhead.py [--episodes 300] [--repeats 5]

Three loops over the same math-arith tasks (level 4, verification in this process so the pool's
round trip does not hide the runner's cost), interleaved per repeat:

- ``single``: the single-turn env, ``reset(task)`` + ``step(gold)`` (the peer);
- ``episode-final``: the same env made with ``tools=["calculator"]``, ``reset`` + ``step(gold)``
  (the chat, schemas and info the episode adds, nothing else);
- ``episode-tool``: ``reset`` + one Hermes ``<tool_call>`` to the calculator + ``step(gold)``.

Printed: median and min microseconds per episode over the repeats, and the ratio to ``single``.
Quote the machine's load (``uptime``) beside the numbers.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from collections.abc import Callable

import rlvr_envs
from rlvr_envs.types import Task


def _loop(run: Callable[[Task], float], tasks: list[Task]) -> float:
    started = time.perf_counter()
    for task in tasks:
        if run(task) != 1.0:
            raise SystemExit(f"an episode did not score 1 on {task.id}: the bench would time a failure")
    return (time.perf_counter() - started) / len(tasks) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    single = rlvr_envs.make("math-arith", level=4, isolation="inline")
    episode = rlvr_envs.make("math-arith", level=4, isolation="inline", tools=["calculator"], max_turns=4)
    tasks = single.sample(args.episodes, seed=0)
    gold = {t.id: single.gold_completion(t) or "" for t in tasks}

    def run_single(task: Task) -> float:
        single.reset(options={"task": task})
        return single.step(gold[task.id])[1]

    def run_final(task: Task) -> float:
        episode.reset(options={"task": task})
        return episode.step(gold[task.id])[1]

    def run_tool(task: Task) -> float:
        episode.reset(options={"task": task})
        expression = re.fullmatch(r"What is (.+)\?", task.prompt)
        text = expression.group(1) if expression else "1"
        episode.step(f'<tool_call>{{"name": "calculator", "arguments": {{"expression": "{text}"}}}}</tool_call>')
        return episode.step(gold[task.id])[1]

    loops = {"single": run_single, "episode-final": run_final, "episode-tool": run_tool}
    for run in loops.values():  # warm every path once
        _loop(run, tasks[:20])
    times: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(args.repeats):
        for name, run in loops.items():
            times[name].append(_loop(run, tasks))
    base = statistics.median(times["single"])
    print(
        f"load {os.getloadavg()[0]:.1f}; {args.episodes} episodes x {args.repeats} repeats, math-arith level 4, inline"
    )
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:14s} median {median:8.1f} us/episode  min {min(values):8.1f}  x{median / base:5.2f} of single")


if __name__ == "__main__":
    main()
