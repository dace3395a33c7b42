"""What a wrong answer that reaches the symbolic step costs, with and without the numeric pre-check.

    .venv/bin/python bench/math_wrong_answers.py [--repeats 3] [--limit 0]

Issue 30: a wrong answer fell through to sympy's ``simplify`` and cost 10-70x a right one. The
items: every MATH-500 and peer-suite gold answer that parses to an expression with symbols or
functions, each against wrong variants of itself (``+ 1``, doubled, squared, a digit changed, a
variable shifted) whose comparison reaches the symbolic step, and against itself (the right
answer). Each item is verified by ``MathVerifier`` with the pre-check (the default) and without
(``numeric_precheck=False``: math-verify's comparison alone), and by math-verify itself, in this
process, CPU time, answer caches emptied before every item (the LaTeX parser's prediction cache
stays, as in any long-running worker). Printed per group: items, total and median milliseconds per
item (min/median/max over repeats of the total), and the verdicts' agreement between the two paths
(they must be identical).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

# Keep this folder off the import path (bench/math_verify.py is named like the package it measures).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from rlvr_envs import Task  # noqa: E402
from rlvr_math import MathVerifier  # noqa: E402
from rlvr_math.equivalence import _parsed, warm_up  # noqa: E402
from rlvr_math.peer import MathVerifyPeer  # noqa: E402
from rlvr_math.verifier import clear_caches  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _golds() -> list[str]:
    import sympy

    golds: set[str] = set()
    for name, key in (("math500.jsonl", "answer"), ("math_verify_cases.jsonl", "gold")):
        with (SHARED / name).open(encoding="utf-8") as fh:
            for line in fh:
                gold = json.loads(line)[key].strip().strip("$").strip()
                if not 0 < len(gold) <= 80 or "boxed" in gold or "\\text" in gold:
                    continue
                parsed = _parsed(f"\\boxed{{{gold}}}")
                if parsed and isinstance(parsed[0], sympy.Expr) and not parsed[0].is_Atom:
                    if parsed[0].free_symbols or parsed[0].atoms(sympy.Function):
                        golds.add(gold)
    return sorted(golds)


def _variants(answer: str) -> list[str]:
    variants = [f"{answer} + 1", f"2\\left({answer}\\right)", f"\\left({answer}\\right)^2"]
    digit = re.search(r"\d", answer)
    if digit is not None:
        variants.append(answer[: digit.start()] + str((int(digit.group(0)) + 1) % 10) + answer[digit.end() :])
    letter = re.search(r"(?<![\\A-Za-z])[a-z](?![A-Za-z])", answer)
    if letter is not None:
        variants.append(answer[: letter.start()] + f"({letter.group(0)}+1)" + answer[letter.end() :])
    return variants


def _timed(verifier, task: Task, completion: str) -> tuple[float, bool, str]:
    clear_caches()
    start = time.process_time()
    verdict = verifier.verify(task, completion)
    return time.process_time() - start, verdict.passed, (verdict.details or {}).get("decided_by", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0, help="use only the first N gold answers (0: all)")
    args = parser.parse_args()
    warm_up()
    with_check = MathVerifier()
    without = MathVerifier()
    without.config = replace(without.config, numeric_precheck=False)
    peer = MathVerifyPeer()
    golds = _golds()[: args.limit or None]
    wrong: list[tuple[Task, str]] = []
    right: list[tuple[Task, str]] = []
    for gold in golds:
        task = Task(id="w", prompt="", answer=gold)
        right.append((task, f"The answer is $\\boxed{{{gold}}}$."))
        for variant in _variants(gold):
            completion = f"The answer is $\\boxed{{{variant}}}$."
            _, passed, how = _timed(with_check, task, completion)
            if not passed and how == "numeric":
                wrong.append((task, completion))
    print(
        f"{len(golds)} gold expressions; {len(wrong)} wrong variants the pre-check decides; {len(right)} right answers"
    )
    totals: dict[str, list[float]] = {}
    medians: dict[str, list[float]] = {}
    verdict_lists: dict[str, list[bool]] = {}
    for _ in range(args.repeats):
        for group, items in (("wrong", wrong), ("right", right)):
            for name, verifier in (("ours", with_check), ("ours, no pre-check", without), ("math-verify", peer)):
                spent, verdicts = [], []
                for task, completion in items:
                    seconds, passed, _ = _timed(verifier, task, completion)
                    spent.append(seconds)
                    verdicts.append(passed)
                totals.setdefault(f"{group}|{name}", []).append(sum(spent))
                medians.setdefault(f"{group}|{name}", []).append(statistics.median(spent) if spent else 0.0)
                verdict_lists[f"{group}|{name}"] = verdicts
    print(f"\n{'group':<6} {'verifier':<20} {'items':>6} {'total s min/med/max':>22} {'median ms/item':>15}")
    for key, values in totals.items():
        group, name = key.split("|")
        count = len(wrong if group == "wrong" else right)
        spread = f"{min(values):.2f}/{statistics.median(values):.2f}/{max(values):.2f}"
        print(f"{group:<6} {name:<20} {count:>6} {spread:>22} {statistics.median(medians[key]) * 1000:>15.1f}")
    on, off = statistics.median(totals["wrong|ours"]), statistics.median(totals["wrong|ours, no pre-check"])
    right_each = statistics.median(totals["right|ours"]) / max(1, len(right))
    print(f"\nwrong answers: {off / on:.1f}x faster with the pre-check; a wrong answer costs "
          f"{off / max(1, len(wrong)) / right_each:.1f}x a right one without it, "
          f"{on / max(1, len(wrong)) / right_each:.1f}x with it")  # fmt: skip
    agree = all(verdict_lists[f"{g}|ours"] == verdict_lists[f"{g}|ours, no pre-check"] for g in ("wrong", "right"))
    print(f"verdicts identical with and without the pre-check: {agree}")


if __name__ == "__main__":
    main()
