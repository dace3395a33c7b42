"""Red team round 12: printing the expected-output file past a special judge.

A stdin/stdout task judged by a special judge (a testlib checker, a Kattis output validator) was
first compared with its expected outputs strictly, and a case whose output equalled the expected
text never reached the checker. But the expected text need not be an answer: the Kattis format's
``.ans`` "may, but is not necessarily required to, contain the correct answer" (an empty file, a
dummy ``0``, a bound or a count the validator reads), and a task's own rows do the same. Printing
it passed every case with the checker never run: ``pass`` scored 1 where the ``.ans`` files are
empty, ``print(0)`` where they hold ``0``. Now an output equal to the expected one skips the
checker only where the checker accepts that expected output as an answer for its case (asked
once per task: ``runs.untrusted_answers``); every other case goes to the checker. Every ``PAID``
row scored 1 before; honest answers score 1 before and after.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_code.contests.checkers import parse_checker
from rlvr_code.contests.kattis import KattisEnv
from rlvr_envs.types import Reason
from tests.code.contest_interactive_cases import fence

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

# Print two positive integers summing to n (testlib's order: input, output, answer).
TESTLIB = """import sys
n = int(open(sys.argv[1]).read())
got = open(sys.argv[2]).read().split()
ok = len(got) == 2 and all(t.isdigit() and int(t) > 0 for t in got) and int(got[0]) + int(got[1]) == n
sys.exit(0 if ok else 1)
"""
KATTIS = """import sys
n = int(open(sys.argv[1]).read())
got = sys.stdin.read().split()
ok = len(got) == 2 and all(t.isdigit() and int(t) > 0 for t in got) and int(got[0]) + int(got[1]) == n
sys.exit(42 if ok else 43)
"""
INPUTS = ["5\n", "9\n", "12\n"]
HONEST = "n = int(input())\nprint(1, n - 1)"
# (the expected text every case carries, a program printing it)
PAID = [
    ("", "pass"),
    ("", "import sys\nsys.exit(0)"),
    ("0\n", "print(0)"),
    ("-1\n", "print(-1)"),
    ("any valid split\n", "print('any valid split')"),
    ("YES\n", "print('YES')"),
]


def _row(expected: str) -> dict:
    return {
        "id": "split",
        "prompt": "Print two positive integers summing to n.",
        "inputs": INPUTS,
        "outputs": [expected] * len(INPUTS),
        "checker": {"type": "program", "source": TESTLIB},
    }


@pytest.mark.parametrize(("expected", "program"), PAID, ids=[f"ans={e!r}-{p[:12]!r}" for e, p in PAID])
def test_printing_the_expected_text_past_a_testlib_checker_is_wrong(expected: str, program: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = rlvr_envs.make("code-python-v9", data=[_row(expected)], timeout_s=10.0)
    [task] = env.tasks
    verdict = env.verifier.verify(task, fence("python", program))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, verdict.details  # before: 1
    assert env.verifier.verify(task, fence("python", HONEST)).reward == 1.0
    partial = rlvr_envs.make("code-python-v9", data=[_row(expected)], timeout_s=10.0, partial_credit=True)
    assert partial.verifier.verify(partial.tasks[0], fence("python", program)).reward == 0.0


def _kattis_package(root: Path, expected: str) -> Path:
    files = {
        "problem.yaml": "problem_format_version: 2023-07-draft\nname: Split\n",
        "statement/problem.en.md": "Print two positive integers summing to n.",
        "output_validator/validate.py": KATTIS,
        **{f"data/{'sample' if i == 0 else 'secret'}/{i}.in": given for i, given in enumerate(INPUTS)},
        **{f"data/{'sample' if i == 0 else 'secret'}/{i}.ans": expected for i in range(len(INPUTS))},
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(("expected", "program"), PAID[:3], ids=[f"ans={e!r}" for e, _ in PAID[:3]])
def test_printing_the_ans_file_past_a_kattis_validator_is_wrong(tmp_path: Path, expected: str, program: str) -> None:
    env = KattisEnv(_kattis_package(tmp_path / "split", expected), timeout_s=10.0)
    [task] = env.tasks
    verdict = env.verifier.verify(task, fence("python", program))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, verdict.details
    assert env.verifier.verify(task, fence("python", HONEST)).reward == 1.0
    in_c = "#include <stdio.h>\nint main(void) { return 0; }\n" if not expected.strip() else ""
    if in_c and shutil.which("gcc"):
        c_env = KattisEnv(_kattis_package(tmp_path / "split-c", expected), timeout_s=10.0, language="c")
        c_verdict = c_env.verifier.verify(c_env.tasks[0], fence("c", in_c))
        assert c_verdict.reward == 0.0, c_verdict.details


def test_an_expected_output_the_checker_accepts_keeps_its_shortcut() -> None:
    from rlvr_code.contests.runs import untrusted_answers

    checker = parse_checker({"type": "program", "source": TESTLIB})
    assert checker is not None
    cases = [{"input": given, "output": f"1 {int(given) - 1}\n"} for given in INPUTS]
    assert untrusted_answers(checker, cases) == frozenset()
    mixed = [*cases[:2], {"input": "12\n", "output": "0\n"}]
    assert untrusted_answers(checker, mixed) == frozenset({2})
    broken = parse_checker({"type": "program", "source": "raise SystemExit(7)"})
    assert broken is not None and untrusted_answers(broken, cases) == frozenset({0, 1, 2})
