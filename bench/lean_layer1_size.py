"""Layer 1's CPU time on large completions, by shape and size: is it linear, and is it bounded?

Run: ``.venv/bin/python bench/lean_layer1_size.py [--baseline DIR] [--sizes 0.1,0.3,0.6,1] [--repeats 1]``

The Lean family's static layer reads a completion before Lean's budget starts, so its cost on a
hostile completion is time no budget bounds. Each shape is a proof body (or commands before the
theorem) grown to each size in MB: one huge term, many small declarations, deep nesting, long
comments, long strings, many ``open``s, unicode identifiers, a one-line tactic chain. For each, in
separate processes run back to back (so that one's caches and imports are not the other's):

- ``now``: the current tree with its defaults (past ``max_code_chars`` the completion is refused
  before it is read: ``format_error``, rule ``size``);
- ``now, read``: the current tree with the cap raised, so that the reading itself is timed (what
  a user who raises ``max_code_chars`` pays, per character);
- ``before``: ``--baseline DIR``, a directory holding an older ``rlvr_lean`` package (e.g.
  ``git archive HEAD~1 envs/lean/rlvr_lean | tar -x -C /tmp/old`` then ``--baseline /tmp/old/envs/lean``).

Time is the child's CPU time for ``static_check`` alone (``time.process_time``); print ``uptime``
beside the numbers: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = "import Mathlib\nopen Nat Real\n"
STATEMENT = "theorem foo (n : ℕ) (h : 0 < n) : n + 0 = n :="


def _rep(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def shapes(size: int) -> dict[str, str]:
    """Whole completions of about ``size`` characters."""
    theorem = STATEMENT + " "
    half = size // 2
    return {
        "one huge term": theorem + "by\n  exact " + _rep("(h.trans (Nat.le_refl _)) ", size),
        "many small declarations": _rep("lemma aux (n : ℕ) : n + 0 = n := by simp\n", size) + theorem + "by simp",
        "deep nesting": theorem + "by\n  exact " + "(" * half + "h" + ")" * half,
        "long comments": theorem
        + "by\n"
        + _rep("  -- a note on the next step\n  /- and /- nested -/ -/\n", size)
        + "  simp",
        "long strings": theorem + "by\n  have := " + _rep('"ab{1}" ++ ', size) + '"c"\n  simp',
        "many opens": _rep("open Nat Real in\n", size) + theorem + "by simp",
        "unicode identifiers": theorem + "by\n  have := " + _rep("αβγδ₁ + ", size // 3) + "0\n  simp",
        "one line": theorem + "by " + _rep("simp; ", size) + "simp",
    }


def worker(tree: str, shape: str, size: int, raise_cap: bool) -> None:
    sys.path.insert(0, tree)
    import time

    from rlvr_envs import Task
    from rlvr_lean.policy import LeanPolicy
    from rlvr_lean.verifier import static_check

    task = Task(id="b", prompt="p", answer={"header": HEADER, "statement": STATEMENT})
    try:
        policy = LeanPolicy(max_code_chars=10**9) if raise_cap else LeanPolicy()
    except TypeError:  # a tree from before round 13 has no cap: it reads everything
        policy = LeanPolicy()
    static_check(task, STATEMENT + " by simp", policy)  # imports and the task parse are not measured
    text = shapes(size)[shape]
    started = time.process_time()
    verdict = static_check(task, text, policy)
    spent = time.process_time() - started
    reason = getattr(verdict, "reason", "prepared")
    print(json.dumps({"cpu_s": spent, "chars": len(text), "verdict": str(getattr(reason, "value", reason))}))


def _child(tree: str, shape: str, size: int, raise_cap: bool) -> dict:
    args = [sys.executable, __file__, "--worker", tree, shape, str(size), "1" if raise_cap else "0"]
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", help="a directory holding an older rlvr_lean package")
    parser.add_argument("--sizes", default="0.1,0.3,0.6,1", help="sizes in MB, comma-separated")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--shapes", help="comma-separated subset of the shapes")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        tree, shape, size, raise_cap = args.worker
        worker(tree, shape, int(size), raise_cap == "1")
        return 0
    now = str(ROOT / "envs" / "lean")
    variants = [("now", now, False), ("now, read", now, True)]
    if args.baseline:
        variants.append(("before", args.baseline, True))
    sizes = [int(float(s) * 1_000_000) for s in args.sizes.split(",")]
    names = args.shapes.split(",") if args.shapes else list(shapes(1000))
    print(f"{'shape':<24} {'MB':>4}  " + "  ".join(f"{label + ' s':>14} {'µs/char':>8}" for label, _, _ in variants))
    for name in names:
        for size in sizes:
            runs: dict[str, list[float]] = {label: [] for label, _, _ in variants}
            verdicts: dict[str, str] = {}
            chars = 0
            for _ in range(args.repeats):  # before and after back to back, under the same load
                for label, tree, raise_cap in variants:
                    result = _child(tree, name, size, raise_cap)
                    runs[label].append(result["cpu_s"])
                    verdicts[label] = result["verdict"]
                    chars = result["chars"]
            cells = []
            for label, _, _ in variants:
                med = statistics.median(runs[label])
                cells.append(f"{med:>14.3f} {1e6 * med / chars:>8.2f}")
            print(f"{name:<24} {size / 1e6:>4.1f}  " + "  ".join(cells) + f"   ({verdicts['now']})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
