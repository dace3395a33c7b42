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

``--baseline OLD_POLICY.py`` (e.g. ``git show HEAD~1:envs/lean/rlvr_lean/policy.py > /tmp/old.py``)
runs that version of the rules in the same process, its passes interleaved with the current
rules' passes, so that a change's cost is read under the same load.

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


def load_baseline(path: str):
    """Another version of ``rlvr_lean/policy.py`` as a module of its own."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rlvr_lean_policy_baseline", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def use_scan(scan) -> None:
    """Every caller of the rules reads ``scan`` from its own module: point them at ``scan``."""
    from rlvr_lean import reference, shape

    shape.scan = scan
    reference.scan = scan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", help="another version of rlvr_lean/policy.py, run interleaved")
    args = parser.parse_args()
    checks = load_checks()
    policy = LeanPolicy()
    from rlvr_lean.shape import scan as current

    versions = [("static policy, ", current, policy)]
    if args.baseline:
        old = load_baseline(args.baseline)

        def old_scan(tokens, src, pol, *_newer_args):  # an older scan may take fewer arguments
            return old.scan(tokens, src, pol)

        versions.append(("baseline, ", old_scan, old.LeanPolicy()))
    for _, scan, pol in versions:  # imports and first-call costs are not what is measured
        use_scan(scan)
        run(checks, pol, cold=False)
    rates_of: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for prefix, scan, pol in versions:
            use_scan(scan)
            for label, cold in (("warm task", False), ("cold", True)):
                rates_of.setdefault(prefix + label, []).append(len(checks) / max(run(checks, pol, cold), 1e-9))
    use_scan(current)
    rows = list(rates_of.items())
    floor_rates = [len(checks) / max(floor(checks), 1e-9) for _ in range(args.repeats)]
    chars = sum(len(c) for _, c in checks) / len(checks)
    print(
        f"{len(checks)} checks per pass (mean completion {chars:.0f} chars), {args.repeats} passes, CPU time of one process\n"
    )
    print(f"{'what':<34} {'min/s':>10} {'median/s':>10} {'max/s':>10}  vs goal {GOAL:,}/s")
    for label, rates in rows:
        med = statistics.median(rates)
        print(f"{label:<34} {min(rates):>10,.0f} {med:>10,.0f} {max(rates):>10,.0f}  {med / GOAL:.1f}x")
    med = statistics.median(floor_rates)
    print(
        f"{'floor: substring test for sorry':<34} {min(floor_rates):>10,.0f} {med:>10,.0f} {max(floor_rates):>10,.0f}  (catches 1 of {len(RULES)} rules)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
