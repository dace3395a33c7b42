"""The first IFEval verdict of a new process, and the warm ones after it (issue 27).

Every verl reward worker and ``serve`` process pays its first verdict. On a language-detection
task that used to take ~9 s (langdetect's profiles and the engine's tables built in Python,
numba imported and its kernels loaded, all before the first answer). Now the tables come from a
per-machine disk cache (``rlvr_ifeval.langdetect_tables``) and the kernels load in a background
thread while the first detections run on the numpy paths.

Each row starts fresh processes (``--runs`` of them) and times, inside each, the import of the
verifier and its first verdict (wall clock), the median of the next 200 verdicts, when numba's
kernels are in use (seconds from the start), and the median of 200 verdicts after that. Rows:

* ``now``: as shipped, with the tables' cache present (what every process after a machine's
  first one sees, or every process after ``scripts/setup.sh``);
* ``now, no cache yet``: the first process on a machine (an empty cache directory);
* ``as before``: an empty cache and the kernels loaded before the first verdict (what
  ``warm_up`` does in a pool worker, and what every process did on its first verdict before).

Run: ``.venv/bin/python bench/ifeval_cold_start.py [--runs 3]``. Quote the load (``uptime``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
start = time.perf_counter()
from rlvr_envs.types import Task
from rlvr_ifeval.verifier import IFEvalVerifier
imported = time.perf_counter()
if sys.argv[1] == "before":
    from rlvr_ifeval.language import warm_up
    warm_up()
task = Task(id="t", prompt="Write in German about rivers.",
            answer={"instruction_id_list": ["language:response_language"], "kwargs": [{"language": "de"}]})
v = IFEvalVerifier()
first = v.verify(task, "Der Rhein ist ein langer Fluss in Europa, und viele Schiffe fahren auf ihm.")
done = time.perf_counter()
def warm(offset):
    times = []
    for i in range(200):
        t = time.perf_counter()
        v.verify(task, f"Die Donau fliesst durch {i + offset} Laender und muendet in das Schwarze Meer bei Sulina.")
        times.append(time.perf_counter() - t)
    return sorted(times)[100]
early = warm(2)
from rlvr_ifeval import langdetect_exact
while not langdetect_exact.engine().compiled and time.perf_counter() - start < 120:
    time.sleep(0.01)
ready = time.perf_counter() - start
print(json.dumps({"import": imported - start, "first": done - imported, "reward": first.reward,
                  "early": early, "ready": ready, "warm": warm(1000)}))
"""


def run_child(mode: str, cache_dir: str | None) -> dict:
    env = dict(os.environ)
    if cache_dir is not None:
        env["RLVR_IFEVAL_CACHE_DIR"] = cache_dir
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "rlvr_ifeval.langdetect_exact"], check=True, capture_output=True)
    rows = []
    for label, mode, fresh_cache in (
        ("now", "now", False),
        ("now, no cache yet", "now", True),
        ("as before (no cache, kernels first)", "before", True),
    ):
        results = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as empty:
                results.append(run_child(mode, empty if fresh_cache else None))
        assert all(r["reward"] == 1.0 for r in results)
        rows.append((label, results))
    print(
        f"{'process':38} {'import s':>8} {'first verdict s (range)':>24} {'next 200, ms':>13} "
        f"{'kernels in use after s':>23} {'warm, ms':>9}"
    )
    for label, results in rows:
        imp = statistics.median(r["import"] for r in results)
        first = [r["first"] for r in results]
        med = {k: statistics.median(r[k] for r in results) for k in ("early", "ready", "warm")}
        span = f"{statistics.median(first):.2f} ({min(first):.2f}-{max(first):.2f})"
        print(
            f"{label:38} {imp:8.2f} {span:>24} {med['early'] * 1000:13.3f} {med['ready']:23.2f} "
            f"{med['warm'] * 1000:9.3f}"
        )


if __name__ == "__main__":
    main()
