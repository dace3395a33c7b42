"""Section 7 of ``bench/pool_overhead.py``: the local pool's lanes in a closed loop (8 calls in flight, the
calls of one loop turn sent together as the server's batcher does, a 0.5 ms verifier on 2 workers): the loop
process's CPU per call, calls per message, p99 and wall time, this tree against other checkouts (``trees``,
run alternately). Run through ``pool_overhead.py --sections 7 [--lanes-trees PATH,...]``; run directly
(``_pool_lanes.py CALLS``) it is the measuring child and prints one JSON line.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _pool_verifiers import CpuVerifier

from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.types import Task, Verdict


def _lanes_child(in_flight: int, calls: int, ms: float) -> None:
    """Section 7's measurement, in the process ``lanes`` runs it in (its tree's package); prints JSON."""
    import asyncio
    import collections
    import json
    from concurrent.futures import Future
    from multiprocessing.connection import Connection

    from rlvr_envs.runtime.backend import Calls

    writes: collections.Counter[str] = collections.Counter()
    send = Connection._send  # type: ignore[attr-defined]

    def counted(self: Any, buf: Any, *args: Any) -> Any:
        writes["n"] += 1
        return send(self, buf, *args)

    Connection._send = counted  # type: ignore[attr-defined]
    verifier = CpuVerifier(ms)
    tasks = [Task(id=str(i), prompt=f"{i}?", answer=i) for i in range(64)]

    async def closed_loop(lanes: Any, rows: int) -> list[float]:
        loop = asyncio.get_running_loop()
        pending: list[tuple[Task, str, Future[Verdict]]] = []
        latencies: list[float] = []
        state = {"left": rows}
        finished: asyncio.Future[None] = loop.create_future()

        def flush() -> None:
            batch = pending[:]
            pending.clear()
            calls = Calls(verifier, [b[0] for b in batch], [b[1] for b in batch], 2.0, 100_000)
            lanes.enqueue(calls, [b[2] for b in batch])

        def submit() -> None:
            state["left"] -= 1
            i = state["left"] % len(tasks)
            future: Future[Verdict] = Future()
            start = time.perf_counter()

            def done(_: Any) -> None:
                latencies.append(time.perf_counter() - start)
                if state["left"] > 0:
                    loop.call_soon(submit)
                elif len(latencies) == rows and not finished.done():
                    finished.set_result(None)

            future.add_done_callback(done)
            pending.append((tasks[i], f"answer {i}", future))
            if len(pending) == 1:
                loop.call_soon(flush)  # the turn's calls in one enqueue, as the server's batcher

        for _ in range(in_flight):
            submit()
        await finished
        return latencies

    async def run() -> dict[str, float]:
        lanes = pool.loop_lanes()
        await closed_loop(lanes, 200)  # workers started, verifier loaded, times per call known
        writes.clear()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        latencies = sorted(await closed_loop(lanes, calls))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        return {
            "cpu_us": 1e6 * cpu / calls,
            "wall_us": 1e6 * wall / calls,
            "per_write": calls / max(1, writes["n"]),
            "p99_ms": 1e3 * latencies[int(0.99 * (len(latencies) - 1))],
        }

    with VerificationPool(2) as pool:
        pool.preload(verifier)
        print(json.dumps(asyncio.run(run())))


def lanes(repeats: int, trees: Sequence[str], calls: int) -> None:
    """Section 7: the lanes' loop CPU per call in a closed loop, this tree against ``trees``."""
    import json
    import subprocess

    from pool_overhead import mmm, table

    names = ["this tree", *trees]
    measured: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for repeat in range(repeats):
        order = names[repeat % len(names) :] + names[: repeat % len(names)]
        for name in order:
            env = dict(os.environ)
            if name != "this tree":
                env["PYTHONPATH"] = os.pathsep.join(p for p in (name, env.get("PYTHONPATH", "")) if p)
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), str(calls)],
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
                check=True,
            ).stdout
            measured[name].append(json.loads(out.strip().splitlines()[-1]))
    base = statistics.median(r["cpu_us"] for r in measured["this tree"])
    rows = []
    for name, runs in measured.items():
        cpu = [r["cpu_us"] for r in runs]
        rows.append(
            [
                name,
                mmm(cpu),
                mmm([r["per_write"] for r in runs], fmt="{:.2f}"),
                mmm([r["p99_ms"] for r in runs]),
                mmm([r["wall_us"] for r in runs], fmt="{:.0f}"),
                f"{base / statistics.median(cpu):.2f}",
            ]
        )
    table(
        f"7. lanes: 8 calls in flight, {calls} calls of 0.5 ms on 2 workers, loop process per call",
        ["tree", "CPU (us)", "calls / message", "p99 (ms)", "wall (us)", "this tree / it (CPU)"],
        rows,
    )


if __name__ == "__main__":
    _lanes_child(8, int(sys.argv[1]), 0.5)
