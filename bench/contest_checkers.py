"""What a checker costs a contest sample (issue 30, contest sets), against the same task without one.

One stdin/stdout task of ``--cases`` cases, answered in Python by: a right program whose output is
the expected one, a wrong program, a right program whose floats differ in the last digits (float
checker), and a right alternative answer (special judge). Each pair is timed side by side in one
run (median of ``--repeats`` samples, one at a time) so the ratios compare like with like:

* right, tokens checker vs none: the strict run accepts it, the checker is never asked (goal ~1x);
* wrong, tokens / special judge vs none: one extra case in the runner, not all of them;
* float right, special-judge alternative: the whole sample runs again in the runner, the checker
  judging each differing case (the price of a checker where one is needed at all).

    .venv/bin/python bench/contest_checkers.py [--cases 20] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from rlvr_code.contests.verifier import ContestVerifier
from rlvr_envs.types import Task

PAIR_CHECKER = """import sys
n = int(open(sys.argv[1]).read())
words = open(sys.argv[2]).read().split()
ok = len(words) == 2 and all(w.isdigit() for w in words) and int(words[0]) + int(words[1]) == n
sys.exit(0 if ok and min(map(int, words)) >= 1 else 1)
"""


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def timed(verifier: ContestVerifier, task: Task, completion: str, repeats: int, want: float) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        verdict = verifier.verify(task, completion)
        times.append(time.perf_counter() - start)
        if verdict.reward != want:
            raise SystemExit(f"unexpected reward {verdict.reward} ({verdict.reason}): {verdict.details}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    verifier = ContestVerifier(timeout_s=60.0, case_timeout_s=10.0)
    numbers = range(2, 2 + args.cases)
    sums = [{"input": f"{n}\n", "output": f"1 {n - 1}\n"} for n in numbers]
    thirds = [{"input": f"{n}\n", "output": f"{n / 3:.12f}\n"} for n in numbers]
    plain = Task(id="pair", prompt="p", answer={"format": "stdio", "cases": sums})

    def task(cases: list[dict[str, str]], checker: object) -> Task:
        return Task(id="t", prompt="p", answer={"format": "stdio", "cases": cases, "checker": checker})

    judge = {"type": "program", "source": PAIR_CHECKER}
    float_checker = {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}
    right = fenced("n = int(input())\nprint(1, n - 1)")
    wrong = fenced("n = int(input())\nprint(0, n)")
    other = fenced("n = int(input())\nprint(n - 1, 1)")
    third = fenced("print(int(input()) / 3)")
    timed(verifier, plain, right, 1, 1.0)  # warm the sandbox
    floats = Task(id="f", prompt="p", answer={"format": "stdio", "cases": thirds})
    rows = [  # (sample, with the checker, the same task without one, completion, rewards with / without)
        ("right, tokens vs none", task(sums, "tokens"), plain, right, (1.0, 1.0)),
        ("right, special judge vs none", task(sums, judge), plain, right, (1.0, 1.0)),
        ("wrong, tokens vs none", task(sums, "tokens"), plain, wrong, (0.0, 0.0)),
        ("wrong, special judge vs none", task(sums, judge), plain, wrong, (0.0, 0.0)),
        ("float right, float vs none (strict: wrong)", task(thirds, float_checker), floats, third, (1.0, 0.0)),
        ("other answer, special judge vs none (strict: wrong)", task(sums, judge), plain, other, (1.0, 0.0)),
    ]
    print(f"{args.cases} cases, median of {args.repeats}, load {os.getloadavg()[0]:.1f}")
    print(f"{'sample':52} {'checker ms':>11} {'none ms':>9} {'ratio':>7}")
    for name, checked_task, base_task, completion, (want, want_base) in rows:
        checked = timed(verifier, checked_task, completion, args.repeats, want)
        base = timed(verifier, base_task, completion, args.repeats, want_base)
        print(f"{name:52} {checked * 1e3:11.1f} {base * 1e3:9.1f} {checked / base:6.2f}x")


if __name__ == "__main__":
    main()
