"""Static-policy checks per second on one core: the Lean family's layer 1 on the shared cases.

Run: ``.venv/bin/python bench/lean_static.py [--repeats 5]``

Every case of ``../shared/data/lean_cases.jsonl`` (218: 98 Goedel-Prover proofs of Lean Workbook
problems, 56 REPL test cases, 60 miniF2F ``sorry`` negatives) is checked in three completion
shapes (the proof body, the restated theorem, the theorem with the header echoed), i.e. 654
checks per pass, each from the raw completion: extraction, tokenizing, command splitting,
statement comparison, every rule, and assembling the code for Lean. Two cache states:

- ``warm task``: the task's header and statement are parsed once (an RL group verifies many
  completions of one task); every completion is still read from scratch;
- ``cold``: the task parse caches are cleared before every pass.

Time is this process's CPU time (``time.process_time``). The floor printed beside it is the
check many public verifiers do instead, a substring test for ``sorry`` (it reads no comments,
strings or nesting and catches none of the other exploits); the goal is 2,000 checks/s so that
layer 1 never shows next to Lean's seconds per proof.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "envs" / "lean"))

from rlvr_envs import Task  # noqa: E402
from rlvr_lean.policy import RULES, LeanPolicy  # noqa: E402
from rlvr_lean.reference import parse_reference  # noqa: E402
from rlvr_lean.shape import parse_statement  # noqa: E402
from rlvr_lean.tokens import tokenize_cached  # noqa: E402
from rlvr_lean.verifier import static_check  # noqa: E402

GOAL = 2_000


def load_checks() -> list[tuple[Task, str]]:
    path = ROOT.parent / "shared" / "data" / "lean_cases.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    checks = []
    for r in rows:
        task = Task(id=r["id"], prompt="p", answer={"header": r["header"], "statement": r["statement"]})
        for completion in (r["proof"], r["statement"] + r["proof"], r["header"] + r["statement"] + r["proof"]):
            checks.append((task, completion))
    return checks


def clear() -> None:
    for cached in (parse_statement, parse_reference, tokenize_cached):
        cached.cache_clear()


def run(checks: list[tuple[Task, str]], policy: LeanPolicy, cold: bool) -> float:
    if cold:
        clear()
    start = time.process_time()
    for task, completion in checks:
        static_check(task, completion, policy)
    return time.process_time() - start


def floor(checks: list[tuple[Task, str]]) -> float:
    start = time.process_time()
    for _, completion in checks:
        _ = "sorry" in completion
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    checks = load_checks()
    policy = LeanPolicy()
    run(checks, policy, cold=False)  # imports and first-call costs are not what is measured
    rows = []
    for label, cold in (("warm task", False), ("cold", True)):
        rates = [len(checks) / max(run(checks, policy, cold), 1e-9) for _ in range(args.repeats)]
        rows.append((label, rates))
    floor_rates = [len(checks) / max(floor(checks), 1e-9) for _ in range(args.repeats)]
    chars = sum(len(c) for _, c in checks) / len(checks)
    print(
        f"{len(checks)} checks per pass (mean completion {chars:.0f} chars), {args.repeats} passes, CPU time of one process\n"
    )
    print(f"{'what':<34} {'min/s':>10} {'median/s':>10} {'max/s':>10}  vs goal {GOAL:,}/s")
    for label, rates in rows:
        med = statistics.median(rates)
        print(
            f"{'static policy, ' + label:<34} {min(rates):>10,.0f} {med:>10,.0f} {max(rates):>10,.0f}  {med / GOAL:.1f}x"
        )
    med = statistics.median(floor_rates)
    print(
        f"{'floor: substring test for sorry':<34} {min(floor_rates):>10,.0f} {med:>10,.0f} {max(floor_rates):>10,.0f}  (catches 1 of {len(RULES)} rules)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
