"""Red team round 12 on code-kattis: a package's output validator is the one the format names.

The 2023-07 problem package format: "a custom output validator ... provided as the directory
``output_validator/``; if no custom validator is provided, the default validator is used",
whatever the problem's ``type``. ``code-kattis-v3`` named a custom validator by the type alone, so a
2023-07 package shipping one was judged by the default validator: an honest float within the
validator's tolerance, or any valid answer of a multiple-answer problem but the ``.ans``'s, scored
0. Its arguments (``output_validator_args``/``output_validator_flags`` of a test group's
``test_group.yaml``/``testdata.yaml``, a case's ``.yaml``, legacy ``validator_flags``) were read only
from ``problem.yaml`` and ``data/testdata.yaml``, and a custom validator with any was left out.
And the feedback directory lacked the path separator the format requires, so a validator writing
``feedback_dir + "judgemessage.txt"`` failed on honest answers (a ``verifier_error``).

``code-kattis-v4`` follows the format; hostile output stays refused (the validator is sandboxed,
only its exit 42 accepts; its crash or timeout is a ``verifier_error``, never a pass). Before the fix
every ``HONEST`` row below scored 0 (or was left out) and the feedback row was a verifier error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import rlvr_envs
from rlvr_code.contests.kattis import KattisEnv, read_package
from rlvr_envs.errors import DeprecatedEnvWarning
from rlvr_envs.types import Reason
from tests.code.contest_interactive_cases import fence
from tests.code.kattis_packages import LEFT_OUT_NOTICE, NEEDS_BWRAP, package

pytestmark = [NEEDS_BWRAP, LEFT_OUT_NOTICE]

# Print sqrt(n): any answer within 1e-6 absolute of the .ans (the validator's own tolerance, or
# its first argument where one is passed). Refuses what is not a plain finite decimal.
FLOAT_VALIDATOR = """import math, re, sys
want = float(open(sys.argv[2]).read())
tolerance = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-6
got = sys.stdin.read().split()
ok = len(got) == 1 and re.fullmatch(r"-?[0-9]+(\\.[0-9]+)?", got[0]) and abs(float(got[0]) - want) <= tolerance
with open(sys.argv[3] + "judgemessage.txt", "w") as fh:  # feedback_dir ends with a separator
    fh.write("ok" if ok else f"wanted {want}")
sys.exit(42 if ok else 43)
"""
SQRT_CASES = {"sample/1": ("2\n", "1.4142135623730951\n"), "secret/2": ("10\n", "3.1622776601683795\n")}
SQRT_SIX = "import math\nprint(f'{math.sqrt(int(input())):.6f}')\n"  # within 1e-6, not the .ans's text
SQRT_FOUR = "import math\nprint(f'{math.sqrt(int(input())):.4f}')\n"  # only within 1e-4

# Print any two positive integers summing to n: many valid answers, the .ans holds one.
SPLIT_VALIDATOR = """import sys
n = int(open(sys.argv[1]).read())
got = sys.stdin.read().split()
ok = len(got) == 2 and all(t.isdigit() and int(t) > 0 for t in got) and int(got[0]) + int(got[1]) == n
sys.exit(42 if ok else 43)
"""
SPLIT_CASES = {"sample/1": ("5\n", "1 4\n"), "secret/2": ("9\n", "1 8\n"), "secret/3": ("12\n", "1 11\n")}
SPLIT_OTHER = "n = int(input())\nprint(n // 2, n - n // 2)\n"


def _package(root: Path, yaml: str, cases: dict[str, tuple[str, str]], files: dict[str, str]) -> Path:
    return package(root, yaml, cases, files)


V2023 = "problem_format_version: 2023-07-draft\n"
# (id, problem.yaml, cases, files, an honest program the format accepts, a wrong one)
HONEST = [
    (
        "2023-float-validator",
        V2023,
        SQRT_CASES,
        {"output_validator/validate.py": FLOAT_VALIDATOR},
        SQRT_SIX,
        "print(1.5)",
    ),
    (
        "2023-float-validator-typed-pass-fail",
        V2023 + "type: pass-fail\n",
        SQRT_CASES,
        {"output_validator/validate.py": FLOAT_VALIDATOR},
        SQRT_SIX,
        "print(1.5)",
    ),
    (
        "2023-multiple-answers",
        V2023,
        SPLIT_CASES,
        {"output_validator/validate.py": SPLIT_VALIDATOR},
        SPLIT_OTHER,
        "n = int(input())\nprint(0, n)",
    ),
    (
        "2023-legacy-folder-name",
        V2023,
        SPLIT_CASES,
        {"output_validators/split/validate.py": SPLIT_VALIDATOR},
        SPLIT_OTHER,
        "n = int(input())\nprint(n, 0)",
    ),
    (
        "2023-group-args-to-the-custom-validator",
        V2023,
        SQRT_CASES,
        {
            "output_validator/validate.py": FLOAT_VALIDATOR,
            "data/test_group.yaml": "output_validator_args: ['1e-3']\n",
        },
        SQRT_FOUR,
        "print(1.5)",
    ),
    (
        "legacy-validator-flags-to-the-custom-validator",
        "validation: custom\nvalidator_flags: 1e-3\n",
        SQRT_CASES,
        {"output_validators/f/validate.py": FLOAT_VALIDATOR},
        SQRT_FOUR,
        "print(1.5)",
    ),
    (
        "2023-group-args-to-the-default-validator",
        V2023,
        SQRT_CASES,
        {
            "data/sample/test_group.yaml": "output_validator_args: [float_absolute_tolerance, '1e-6']\n",
            "data/secret/test_group.yaml": "output_validator_args: [float_absolute_tolerance, '1e-6']\n",
        },
        SQRT_SIX,
        "print(1.5)",
    ),
    (
        "legacy-group-flags-to-the-default-validator",
        "",
        SQRT_CASES,
        {
            "data/sample/testdata.yaml": "output_validator_flags: float_tolerance 1e-6\n",
            "data/secret/testdata.yaml": "output_validator_flags: float_tolerance 1e-6\n",
        },
        SQRT_SIX,
        "print(1.5)",
    ),
]


@pytest.mark.parametrize(("name", "yaml", "cases", "files", "honest", "wrong"), HONEST, ids=[r[0] for r in HONEST])
def test_an_honest_answer_the_packages_validator_accepts_scores(
    tmp_path: Path, name, yaml, cases, files, honest, wrong
) -> None:
    env = rlvr_envs.make("code-kattis-v4", data=str(_package(tmp_path / name, yaml, cases, files)), timeout_s=10.0)
    assert isinstance(env, KattisEnv)
    assert env.skipped == [] and len(env.tasks) == 1, env.skipped
    [task] = env.tasks
    right = env.verifier.verify(task, fence("python", honest))
    assert right.reward == 1.0, right.details  # before: 0 (judged by the .ans's text) or left out
    verdict = env.verifier.verify(task, fence("python", wrong))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, verdict.details


def test_v3_keeps_its_reading(tmp_path: Path) -> None:
    package = _package(tmp_path / "p", V2023, SQRT_CASES, {"output_validator/validate.py": FLOAT_VALIDATOR})
    with pytest.warns(DeprecatedEnvWarning):
        env = rlvr_envs.make("code-kattis-v3", data=str(package), timeout_s=10.0)
    [task] = env.tasks
    assert task.answer["checker"]["type"] == "tokens"  # the default validator, as v3 read it
    assert env.verifier.verify(task, fence("python", SQRT_SIX)).reward == 0.0


# Hostile output against a float validator: none of it is a number within 1e-6 of sqrt(n).
HOSTILE = [
    "print('nan')",
    "print('inf')",
    "print('1e400')",
    "print('-0.0')",
    "print('0x10')",
    "print('\u0661.\u0664\u0661')",  # Arabic-Indic digits
    "print('1.4142135623730951 extra')",
    "print()",
    "import sys\nsys.exit(42)",  # the validator's accept status, from the contestant
    "print(42)\nimport os\nos._exit(42)",
    "print(open('/tmp/answer.txt').read() if __import__('os').path.exists('/tmp/answer.txt') else '')",
]


@pytest.mark.parametrize("program", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_hostile_output_stays_refused(tmp_path: Path, program: str) -> None:
    package = _package(tmp_path / "p", V2023, SQRT_CASES, {"output_validator/validate.py": FLOAT_VALIDATOR})
    env = KattisEnv(package, timeout_s=10.0)
    verdict = env.verifier.verify(env.tasks[0], fence("python", program))
    assert verdict.reward == 0.0, verdict.details


BROKEN = [
    ("crashes", "import sys\nraise RuntimeError('validator bug')\n"),
    ("exits-0", "import sys\nsys.exit(0)\n"),
    ("hangs", "while True:\n    pass\n"),
]


@pytest.mark.parametrize(("name", "validator"), BROKEN, ids=[r[0] for r in BROKEN])
def test_a_broken_validator_is_the_verifiers_error_never_a_pass(tmp_path: Path, name: str, validator: str) -> None:
    package = _package(tmp_path / name, V2023, SQRT_CASES, {"output_validator/validate.py": validator})
    problem, judge = read_package(package)
    judge["checker"]["timeout_s"] = 1.0  # the hang costs a second, not the default five
    env = KattisEnv(package, timeout_s=10.0, checkers={problem.id: judge["checker"]})
    for program in (SQRT_SIX, "print(1.5)"):
        verdict = env.verifier.verify(env.tasks[0], fence("python", program))
        assert verdict.reward == 0.0 and verdict.reason is Reason.VERIFIER_ERROR, (program, verdict.details)


def test_arguments_that_differ_between_cases_leave_the_package_out(tmp_path: Path) -> None:
    files = {
        "output_validator/validate.py": FLOAT_VALIDATOR,
        "data/sample/test_group.yaml": "output_validator_args: ['1e-6']\n",
        "data/secret/test_group.yaml": "output_validator_args: ['1e-3']\n",
    }
    root = tmp_path / "set"
    _package(root / "differ", V2023, SQRT_CASES, files)
    _package(root / "plain", V2023, SPLIT_CASES, {"output_validator/validate.py": SPLIT_VALIDATOR})
    env = KattisEnv(root, timeout_s=10.0)
    assert [t.id for t in env.tasks] == ["kattis/plain"]
    assert any("differ" in why and "arguments" in why for why in env.skipped), env.skipped


def test_arguments_are_quoted_into_the_step_not_run() -> None:
    from rlvr_code.contests.kattis_protocol import checker_step, interactor_step

    hostile = ["$(touch /tmp/x)", "; exit 42", "a b"]
    for step in (checker_step(hostile), interactor_step(True, hostile)):
        assert "'$(touch /tmp/x)'" in step and "'; exit 42'" in step and "'a b'" in step


GUESS_WITH_ARGS = """import sys
secret, rounds = int(open(sys.argv[1]).read()), int(sys.argv[4])
for _ in range(rounds):
    line = sys.stdin.readline()
    if not line.strip().isdigit():
        sys.exit(43)
    guess = int(line)
    print("correct" if guess == secret else "lower" if guess > secret else "higher", flush=True)
    if guess == secret:
        sys.exit(42)
sys.exit(43)
"""
BISECT = """lo, hi = 1, 100
while True:
    mid = (lo + hi) // 2
    print(mid, flush=True)
    said = input().strip()
    if said == "correct":
        break
    lo, hi = (lo, mid - 1) if said == "lower" else (mid + 1, hi)
"""


def test_an_interactive_validator_gets_its_arguments(tmp_path: Path) -> None:
    cases = {f"secret/{n}": (f"{n}\n", "") for n in (1, 37, 100)}
    files = {"output_validator/validate.py": GUESS_WITH_ARGS, "data/test_group.yaml": "output_validator_args: ['8']\n"}
    env = KattisEnv(_package(tmp_path / "guess", V2023 + "type: interactive\n", cases, files), timeout_s=10.0)
    [task] = env.tasks  # before: left out (a custom validator with arguments)
    assert task.answer["interactor"]["args"] == ["8"]
    assert env.verifier.verify(task, fence("python", BISECT)).reward == 1.0
    linear = "for g in range(1, 101):\n    print(g, flush=True)\n    input()"
    assert env.verifier.verify(task, fence("python", linear)).reward == 0.0


def test_an_absolute_tolerance_of_one_or_more_loads_and_judges(tmp_path: Path) -> None:
    cases = {"sample/1": ("1000000\n", "2000000\n"), "secret/2": ("3000000\n", "6000000\n")}
    files = {"data/testdata.yaml": "output_validator_flags: float_absolute_tolerance 2\n"}  # v3 read it too
    root = tmp_path / "set"
    _package(root / "big", V2023, cases, files)
    _package(root / "plain", V2023, SPLIT_CASES, {"output_validator/validate.py": SPLIT_VALIDATOR})
    env = KattisEnv(root, timeout_s=10.0)  # before: DataError at make (abs_tol had to be below 1)
    task = next(t for t in env.tasks if t.id == "kattis/big")
    assert env.verifier.verify(task, fence("python", "print(2 * int(input()) + 1.5)")).reward == 1.0
    assert env.verifier.verify(task, fence("python", "print(2 * int(input()) + 3)")).reward == 0.0
