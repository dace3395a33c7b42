"""Red team round 13, special judges: a judge that pays a constant, a judge that cannot be blamed,
and Kattis' ``space_change_sensitive`` end to end.

* A special judge that accepts one constant output on every case (a validator that checks only the
  format, one comparing the answer file with itself, one whose loop over the output's tokens is
  vacuously true for none, one taking ``-1`` for "impossible" without checking) paid every policy
  that found the constant: ``print(0)`` or ``pass`` scored 1. Each checker task is now asked once
  (``checker_audit``, cached) what it does with ``""``, ``0``, ``1``, ``-1``, ``YES``, ``NO`` on one
  case, and where one is accepted, on every case: accepted everywhere, the task is refused
  (``verifier_error`` naming the constant, for every sample, the honest one included).
* A special judge that crashes on its own expected output and on garbage: the blame rule (red team
  round 5) runs the checker on the expected output to tell whether the program's output crashed
  it, and here it cannot, so garbage was a ``verifier_error`` (no update) while an honest wrong
  answer was a 0: a policy learns to print garbage. Now the task is refused for every sample alike.
* Kattis' ``space_change_sensitive``: a Python program printing a trailing space passed the
  family's line comparison before the validator's rule was ever asked (and the flag was ignored).

Every ``PAID`` / ``PREFERRED`` row behaved as its comment says before the fix (checked against
the previous commit); honest answers on sound judges score 1 before and after.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_code.contests.checker_audit import audit
from rlvr_code.contests.checkers import parse_checker
from rlvr_code.contests.kattis import KattisEnv
from rlvr_envs.types import Reason
from tests.code.contest_interactive_cases import fence

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

INPUTS = ["5\n", "9\n", "12\n"]
SPLIT = "n = int(input())\nprint(1, n - 1)"  # two positive integers summing to n
EXPECTED = [f"1 {int(n) - 1}\n" for n in INPUTS]

# (id, testlib checker in Python, the constant program it paid before, an honest program)
CONSTANT_JUDGES = [
    (
        "format-only",  # checks that the output is one or two integers, never their values
        "import sys\ngot = open(sys.argv[2]).read().split()\n"
        "sys.exit(0 if 1 <= len(got) <= 2 and all(t.lstrip('-').isdigit() for t in got) else 1)\n",
        "print(0)",
        SPLIT,
    ),
    (
        "answer-against-itself",  # reads the answer file twice instead of the output
        "import sys\nsys.exit(0 if open(sys.argv[3]).read().split() == open(sys.argv[3]).read().split() else 1)\n",
        "pass",
        SPLIT,
    ),
    (
        "vacuous-loop",  # every token a positive integer... of none
        "import sys\nn = int(open(sys.argv[1]).read())\ngot = open(sys.argv[2]).read().split()\n"
        "ok = all(t.isdigit() and 0 < int(t) < n for t in got) and (not got or sum(map(int, got)) == n)\n"
        "sys.exit(0 if ok else 1)\n",
        "pass",
        SPLIT,
    ),
    (
        "impossible-unchecked",  # takes -1 ("no split exists") at its word
        "import sys\nn = int(open(sys.argv[1]).read())\ngot = open(sys.argv[2]).read().split()\n"
        "ok = got == ['-1'] or (len(got) == 2 and all(t.isdigit() and int(t) > 0 for t in got) "
        "and int(got[0]) + int(got[1]) == n)\nsys.exit(0 if ok else 1)\n",
        "print(-1)",
        SPLIT,
    ),
    (
        "shape-only",  # two integers, any values
        "import sys\ngot = open(sys.argv[2]).read().split()\n"
        "sys.exit(0 if len(got) == 2 and all(t.lstrip('-').isdigit() for t in got) else 1)\n",
        "print(0, 0)",
        SPLIT,
    ),
    (
        "sample-left-in",  # the first sample's answer hard-coded as accepted (a debugging leftover)
        "import sys\nn = int(open(sys.argv[1]).read())\ngot = open(sys.argv[2]).read().split()\n"
        "ok = got == ['1', '4'] or (len(got) == 2 and all(t.isdigit() and int(t) > 0 for t in got) "
        "and int(got[0]) + int(got[1]) == n)\nsys.exit(0 if ok else 1)\n",
        "print(1, 4)",
        SPLIT,
    ),
    (
        "verdict-word",  # a yes/no problem whose checker accepts NO for 'no answer needed'
        "import sys\ngot = open(sys.argv[2]).read().split()\nwant = open(sys.argv[3]).read().split()\n"
        "sys.exit(0 if got == want or [t.upper() for t in got] == ['NO'] else 1)\n",
        "print('no')",
        SPLIT,
    ),
]
SOUND = (
    "import sys\nn = int(open(sys.argv[1]).read())\ngot = open(sys.argv[2]).read().split()\n"
    "ok = len(got) == 2 and all(t.isdigit() and int(t) > 0 for t in got) and int(got[0]) + int(got[1]) == n\n"
    "sys.exit(0 if ok else 1)\n"
)


def _env(checker: str, expected: list[str] | None = None):
    row = {
        "id": "split",
        "prompt": "Print two positive integers summing to n.",
        "inputs": INPUTS,
        "outputs": expected or EXPECTED,
        "checker": {"type": "program", "source": checker},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = rlvr_envs.make("code-python-v9", data=[row], timeout_s=10.0)
    return env, env.tasks[0]


@pytest.mark.parametrize(
    ("name", "checker", "constant", "honest"), CONSTANT_JUDGES, ids=[c[0] for c in CONSTANT_JUDGES]
)
def test_a_checker_that_accepts_a_constant_everywhere_is_refused(
    name: str, checker: str, constant: str, honest: str
) -> None:
    env, task = _env(checker)
    paid = env.verifier.verify(task, fence("python", constant))  # PAID: reward 1 before the audit
    assert paid.reward == 0.0 and paid.reason is Reason.VERIFIER_ERROR, paid.details
    assert "constant output" in paid.details["error"]
    same = env.verifier.verify(task, fence("python", honest))  # every sample alike: nothing to prefer
    assert same.reason is Reason.VERIFIER_ERROR and same.details["error"] == paid.details["error"]


def test_a_sound_checker_is_not_refused_and_its_constants_score_zero() -> None:
    env, task = _env(SOUND)
    assert env.verifier.verify(task, fence("python", SPLIT)).reward == 1.0
    other = "n = int(input())\nprint(n // 2, n - n // 2)"  # another valid answer, not the expected text
    assert env.verifier.verify(task, fence("python", other)).reward == 1.0
    for constant in ("pass", "print(0)", "print(-1)", "print('NO')"):
        verdict = env.verifier.verify(task, fence("python", constant))
        assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, (constant, verdict.details)


def test_a_constant_every_case_expects_and_accepts_is_refused_but_one_case_is_kept() -> None:
    # .ans files all empty (or all 0) under a judge that accepts them: printing nothing passes every
    # case (PAID before: the probe was skipped as "the answer itself"). One case: kept, as round 8
    # keeps a task with one hidden answer.
    vacuous = CONSTANT_JUDGES[2][1]
    empty = [{"input": n, "output": ""} for n in INPUTS]
    checker = parse_checker({"type": "program", "source": vacuous})
    zero = parse_checker(
        {"type": "program", "source": "import sys\nsys.exit(0 if open(sys.argv[2]).read().split() == ['0'] else 1)\n"}
    )
    assert checker is not None and zero is not None
    assert "constant output ''" in str(audit(checker, empty).refusal)
    assert "constant output '0" in str(audit(zero, [{"input": n, "output": "0\n"} for n in INPUTS]).refusal)
    assert audit(zero, [{"input": "5\n", "output": "0\n"}]).refusal is None


# Parses the output's tokens as integers before anything (crashes on words). Where the answer file
# holds a note, not an answer ("any valid split"), it crashes on its own .ans and on garbage alike.
FRAGILE = (
    "import sys\nn = int(open(sys.argv[1]).read())\n"
    "got = [int(t) for t in open(sys.argv[2]).read().split()]\n"
    "sys.exit(0 if len(got) == 2 and min(got) > 0 and sum(got) == n else 1)\n"
)


def test_a_checker_broken_on_its_own_answers_and_on_garbage_is_refused_for_every_sample() -> None:
    env, task = _env(FRAGILE, expected=["any valid split\n"] * 3)
    # PREFERRED before: garbage a verifier_error (left out of the update), a wrong pair a 0.
    verdicts = {
        program: env.verifier.verify(task, fence("python", program))
        for program in ("print('abc')", "print(0, 0)", SPLIT)
    }
    errors = {v.details.get("error") for v in verdicts.values()}
    assert all(v.reason is Reason.VERIFIER_ERROR for v in verdicts.values()), verdicts
    assert len(errors) == 1 and "broken" in str(next(iter(errors)))


def test_a_checker_that_crashes_only_on_garbage_still_blames_the_output() -> None:
    # Round 5's case: it accepts its own answers, so garbage that crashes it is the program's fault.
    env, task = _env(FRAGILE)
    verdict = env.verifier.verify(task, fence("python", "print('abc')"))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, verdict.details
    assert env.verifier.verify(task, fence("python", SPLIT)).reward == 1.0
    assert env.verifier.verify(task, fence("python", "print(0, 0)")).reason is Reason.WRONG


KATTIS_CONSTANT = (
    "import sys\ngot = sys.stdin.read().split()\nsys.exit(42 if len(got) <= 1 else 43)\n"  # checks the count only
)


def _package(root: Path, files: dict[str, str]) -> Path:
    cases = {"sample/1": ("1\n", "2\n"), "secret/2": ("5\n", "6\n"), "secret/3": ("41\n", "42\n")}
    written = {
        "statement/problem.en.md": "Print n + 1.",
        **{f"data/{name}.in": given for name, (given, _) in cases.items()},
        **{f"data/{name}.ans": want for name, (_, want) in cases.items()},
        **files,
    }
    for name, text in written.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_kattis_validator_that_accepts_a_constant_everywhere_is_refused(tmp_path: Path) -> None:
    package = _package(
        tmp_path / "count",
        {
            "problem.yaml": "problem_format_version: 2023-07-draft\nname: Count\n",
            "output_validator/validate.py": KATTIS_CONSTANT,
        },
    )
    env = KattisEnv(package, timeout_s=10.0)
    verdict = env.verifier.verify(env.tasks[0], fence("python", "pass"))  # PAID: 1 before
    assert verdict.reward == 0.0 and verdict.reason is Reason.VERIFIER_ERROR and "constant" in verdict.details["error"]


@pytest.mark.parametrize(
    ("program", "flagged", "plain"),
    [
        ("print(int(input()) + 1)", 1.0, 1.0),  # HONEST
        ("print(int(input()) + 1, end=' \\n')", 0.0, 1.0),  # PAID under the flag before: a trailing space
        ("print(int(input()) + 1, end='')", 0.0, 1.0),  # PAID: no last newline
        ("print(' ' + str(int(input()) + 1))", 0.0, 1.0),  # PAID: a leading space
        ("print(int(input()) + 1, end='\\n\\n')", 0.0, 1.0),  # PAID: a blank line more
    ],
)
def test_kattis_space_change_sensitive_judges_every_output(
    tmp_path: Path, program: str, flagged: float, plain: float
) -> None:
    legacy = "name: Next\nvalidation: default\n"
    sensitive = KattisEnv(
        _package(tmp_path / "flagged", {"problem.yaml": legacy + "validator_flags: space_change_sensitive\n"}),
        timeout_s=10.0,
    )
    verdict = sensitive.verifier.verify(sensitive.tasks[0], fence("python", program))
    assert verdict.reward == flagged, verdict.details
    lenient = KattisEnv(_package(tmp_path / "plain", {"problem.yaml": legacy}), timeout_s=10.0)
    assert lenient.verifier.verify(lenient.tasks[0], fence("python", program)).reward == plain


def test_refused_tasks_lists_a_set_s_broken_judges_up_front() -> None:
    from rlvr_code.contests.checker_audit import refused_tasks

    constant, _ = _env(CONSTANT_JUDGES[0][1])
    sound, _ = _env(SOUND)
    tasks = [*constant.tasks, sound.tasks[0].model_copy(update={"id": "sound"})]
    found = refused_tasks(tasks)
    assert list(found) == [constant.tasks[0].id] and "constant output" in found[constant.tasks[0].id]
