"""Honest rewards: every MATH-500 and GSM8K reference solution, verified under its own prompt.

    .venv/bin/python bench/math_reference_solutions.py [--show 10]

A check that refuses hedged or taken-back answers must not refuse the datasets' own worked
solutions: each is a right answer written the way people write them (a unit or a noun after the
box, a sentence after the ``####`` line). Prints how many of the 1,819 score 1, by dataset, and the
ones that do not (with the verifier's reason), so a change to the checks can be compared before
and after on the same rows. Needs ``../shared/data`` (math500.jsonl, gsm8k_test.jsonl).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# This file is named like the package it measures: keep its folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from rlvr_envs import Task  # noqa: E402
from rlvr_math import MathVerifier  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def reference_rows() -> list[tuple[str, str, str, str]]:
    """(dataset, prompt, gold, reference solution) for every MATH-500 and GSM8K test row."""
    rows: list[tuple[str, str, str, str]] = []
    for name, label in (("math500.jsonl", "MATH-500"), ("gsm8k_test.jsonl", "GSM8K")):
        with open(SHARED / name, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    rows.append((label, row["problem"], str(row["answer"]), row["solution"]))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=10, help="zeros to print")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"no peer data at {SHARED}")
        return 2
    verifier = MathVerifier()
    paid: dict[str, list[int]] = {}
    zeros: list[tuple[str, str, str, str]] = []
    for i, (label, prompt, gold, solution) in enumerate(reference_rows()):
        verdict = verifier.verify(Task(id=str(i), prompt=prompt, answer=gold), solution)
        counts = paid.setdefault(label, [0, 0])
        counts[0] += verdict.passed
        counts[1] += 1
        if not verdict.passed:
            why = str(verdict.details.get("refused") or verdict.details.get("decided_by") or verdict.reason)
            zeros.append((label, gold, solution[-120:], why))
    total = sum(c[0] for c in paid.values()), sum(c[1] for c in paid.values())
    for label, (good, n) in paid.items():
        print(f"{label}: {good} of {n} reference solutions score 1")
    print(f"all: {total[0]} of {total[1]}")
    for label, gold, tail, why in zeros[: args.show]:
        print(f"  0: {label} gold {gold!r}: ...{tail!r} ({why})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
