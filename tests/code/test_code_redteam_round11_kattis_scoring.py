"""Red team round 11 on code-kattis: a scoring problem's validator grades, it does not pass.

In a Kattis *scoring* problem judged by its own output validator (legacy ``validation: custom
score``; 2023-07 ``type: scoring`` with an ``output_validator/``) exit 42 means "a valid answer,
scored": the score is in ``score.txt`` of the feedback directory (absent, the case's full
score). An optimisation problem's validator accepts every feasible answer that way. A pass/fail
reward read the 42 alone, so any feasible answer (the empty one, the first item) scored 1: a
policy learns to answer trivially. The package is now left out (``env.skipped`` says why);
scoring problems judged pass/fail per case (the default validator, or a legacy custom validator
without ``score``, whose score.txt Kattis ignores) keep their tasks, as do pass-fail problems.

Before the fix the legacy rows loaded and an empty answer paid 1 (the 2023-07 rows loaded too, judged
by the default validator: this loader reads no 2023-07 ``output_validator/`` yet, so they are refused
ahead of that); the kept rows load and judge alike before and after.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rlvr_code.contests.kattis import KattisEnv
from tests.code.contest_interactive_cases import fence
from tests.code.kattis_packages import LEFT_OUT_NOTICE, NEEDS_BWRAP, package

pytestmark = [NEEDS_BWRAP, LEFT_OUT_NOTICE]

# Knapsack-like: print item indices whose weights fit the capacity; the score is the weight
# taken over the best (the .ans). Any feasible list is accepted (42) with its score.
SCORING_VALIDATOR = """import sys
cap, *weights = map(int, open(sys.argv[1]).read().split())
best = int(open(sys.argv[2]).read())
words = sys.stdin.read().split()
if not all(w.isdigit() and int(w) < len(weights) for w in words) or len(set(words)) != len(words):
    sys.exit(43)
taken = sum(weights[int(w)] for w in words)
if taken > cap:
    sys.exit(43)
with open(sys.argv[3] + "/score.txt", "w") as fh:
    fh.write(str(taken / best if best else 1.0))
sys.exit(42)
"""
# The same problem judged pass/fail: the best weight or nothing.
PASS_FAIL_VALIDATOR = SCORING_VALIDATOR.replace(
    'with open(sys.argv[3] + "/score.txt", "w") as fh:\n    fh.write(str(taken / best if best else 1.0))\n',
    "if taken != best:\n    sys.exit(43)\n",
)
INTERACTIVE_SCORING = """import sys
cap, *weights = map(int, open(sys.argv[1]).read().split())
print(cap, len(weights), *weights, flush=True)
words = sys.stdin.readline().split()
if not all(w.isdigit() and int(w) < len(weights) for w in words) or sum(weights[int(w)] for w in words) > cap:
    sys.exit(43)
open(sys.argv[3] + "/score.txt", "w").write("0.1")
sys.exit(42)
"""
CASES = {"1": ("10 6 5 4\n", "10\n"), "2": ("7 5 3 3 1\n", "7\n"), "3": ("9 8 2 7\n", "9\n")}
BEST = (
    "from itertools import combinations\n"
    "cap, *w = map(int, open(0).read().split())\n"
    "best = max((c for r in range(len(w) + 1) for c in combinations(range(len(w)), r)"
    " if sum(w[i] for i in c) <= cap), key=lambda c: sum(w[i] for i in c))\n"
    "print(*best)\n"
)
TRIVIAL = ("print()", "print(0)")  # nothing taken; the first item (fits every case above)


def _package(root: Path, yaml: str, validator: str, folder: str = "output_validators/v") -> Path:
    cases = {f"{'sample' if n == '1' else 'secret'}/{n}": case for n, case in CASES.items()}
    files = {f"{folder}/validate.py": validator, "submissions/accepted/best.py": BEST}
    statement = ("problem_statement/problem.en.tex", "Take items of the largest total weight that fits.")
    return package(root, yaml, cases, files, name="Pack", statement=statement)


# (name, problem.yaml lines, validator, its folder): scoring problems whose validator grades.
GRADED = [
    ("legacy-custom-score", "type: scoring\nvalidation: custom score\n", SCORING_VALIDATOR, "output_validators/v"),
    ("legacy-score-without-type", "validation: custom score\n", SCORING_VALIDATOR, "output_validators/v"),
    (
        "format-2023-scoring",
        "problem_format_version: 2023-07-draft\ntype: scoring\n",
        SCORING_VALIDATOR,
        "output_validator",
    ),
    (
        "format-2023-scoring-list",
        "problem_format_version: 2023-07-draft\ntype: [scoring]\n",
        SCORING_VALIDATOR,
        "output_validator",
    ),
]
# Kept: graded pass/fail per case (Kattis ignores a score.txt there), or not scoring at all.
KEPT = [
    ("legacy-scoring-pass-fail", "type: scoring\nvalidation: custom\n", PASS_FAIL_VALIDATOR, "output_validators/v"),
    ("pass-fail-custom", "validation: custom\n", PASS_FAIL_VALIDATOR, "output_validators/v"),
]


@pytest.mark.parametrize(("name", "yaml", "validator", "folder"), GRADED, ids=[row[0] for row in GRADED])
def test_a_scoring_validators_acceptance_is_not_a_pass(tmp_path: Path, name, yaml, validator, folder) -> None:
    root = tmp_path / "set"
    _package(root / name, yaml, validator, folder)
    _package(root / "plain", "validation: custom\n", PASS_FAIL_VALIDATOR)  # the set keeps a task
    env = KattisEnv(root, timeout_s=10.0)
    for task in env.tasks:  # before: the graded package loaded, and an empty answer paid 1
        for trivial in TRIVIAL:
            verdict = env.verifier.verify(task, fence("python", trivial))
            assert verdict.reward == 0.0, (task.id, trivial, verdict.details)
    assert [task.id for task in env.tasks] == ["kattis/plain"]
    assert any(name in why and "score" in why for why in env.skipped), env.skipped


def test_an_interactive_scoring_validator_is_left_out_too(tmp_path: Path) -> None:
    root = tmp_path / "set"
    _package(root / "ask", "type: scoring\nvalidation: custom interactive score\n", INTERACTIVE_SCORING)
    _package(root / "plain", "validation: custom\n", PASS_FAIL_VALIDATOR)
    env = KattisEnv(root, timeout_s=10.0)
    assert [task.id for task in env.tasks] == ["kattis/plain"]
    assert any("ask" in why and "score" in why for why in env.skipped), env.skipped


@pytest.mark.parametrize(("name", "yaml", "validator", "folder"), KEPT, ids=[row[0] for row in KEPT])
def test_pass_fail_judging_keeps_its_task_and_its_verdicts(tmp_path: Path, name, yaml, validator, folder) -> None:
    env = KattisEnv(_package(tmp_path / name, yaml, validator, folder), timeout_s=10.0)
    [task] = env.tasks
    assert env.verifier.verify(task, fence("python", BEST)).reward == 1.0
    for trivial in TRIVIAL:
        verdict = env.verifier.verify(task, fence("python", trivial))
        assert verdict.reward == 0.0, (trivial, verdict.details)


def test_a_scoring_problem_under_the_default_validator_is_kept(tmp_path: Path) -> None:
    """Pass/fail per case against the .ans: every case right is the full score."""
    package = _package(tmp_path / "sum", "problem_format_version: 2023-07-draft\ntype: scoring\n", "", "unused")
    shutil.rmtree(package / "unused")
    env = KattisEnv(package, timeout_s=10.0)
    [task] = env.tasks
    weight = BEST.replace("print(*best)", "print(sum(w[i] for i in best))")
    assert env.verifier.verify(task, fence("python", weight)).reward == 1.0
    assert env.verifier.verify(task, fence("python", "print(0)")).reward == 0.0
