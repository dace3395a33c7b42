"""The ``python`` episode tool, warm: call latency and idle memory (issue 28).

Anchor: a fresh sandboxed interpreter per call (the same bubblewrap sandbox, started, asked one
cell, killed), which is what a tool without a persistent session would pay. Targets: warm call
p50 <= 5 ms and >= 10x faster than the anchor; an idle session <= 10 MB (USS and PSS, summed over
its processes: bubblewrap, bubblewrap's pid-1, the interpreter).

    .venv/bin/python bench/python_tool.py [--calls 300] [--fresh 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from rlvr_code.tools.python_tool import PythonProcess


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (via /proc/<pid>/task/<pid>/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except (OSError, ValueError):
            pass
    return found


def memory_kb(pid: int) -> tuple[int, int, int]:
    """(USS, PSS, RSS) in kB, from /proc/<pid>/smaps_rollup."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    uss = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)
    return uss, fields.get("Pss", 0), fields.get("Rss", 0)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--fresh", type=int, default=20)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()}")

    fresh = []
    for _ in range(args.fresh):
        start = time.perf_counter()
        p = PythonProcess()
        p.run("x = 1\nx + 1", 10)
        p.kill()
        fresh.append(time.perf_counter() - start)

    p = PythonProcess()
    p.run("x = 1", 10)
    warm = []
    for _ in range(args.calls):
        start = time.perf_counter()
        p.run("x + 1", 10)
        warm.append(time.perf_counter() - start)
    time.sleep(0.5)
    pids = tree(p.proc.pid)
    totals = [sum(col) for col in zip(*(memory_kb(pid) for pid in pids))]
    p.kill()

    warm_p50, fresh_p50 = statistics.median(warm), statistics.median(fresh)
    print(f"{'':34}{'p50 ms':>9}{'p90 ms':>9}")
    print(f"{'warm session, one call':34}{warm_p50 * 1e3:9.2f}{percentile(warm, 0.9) * 1e3:9.2f}")
    print(f"{'fresh sandboxed interpreter/call':34}{fresh_p50 * 1e3:9.2f}{percentile(fresh, 0.9) * 1e3:9.2f}")
    print(f"speed-up (p50): {fresh_p50 / warm_p50:.0f}x")
    uss, pss, rss = (kb / 1024 for kb in totals)
    print(f"idle session, {len(pids)} processes: USS {uss:.1f} MB, PSS {pss:.1f} MB, RSS {rss:.1f} MB")


if __name__ == "__main__":
    main()
