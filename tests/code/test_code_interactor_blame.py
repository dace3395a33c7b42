"""Whose fault is an interactor's crash on a task without a reference solution (issue 26)?

An interactor that raises on output it cannot parse made the sample a ``verifier_error``: a
wrong program printing garbage chose an infrastructure failure over its 0 (with the adapters'
``FailurePolicy``, enough of them stop the run). Without a reference to play it, the interactor is
probed once per task: garbage output and no output at all. One that fails on garbage but not on
silence is fragile: its failures follow from the program's output (a wrong answer). One that
fails on silence too is broken: ``verifier_error``, whatever the program.
"""

from __future__ import annotations

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from tests.code.contest_interactive_cases import BROKEN_INTERACTOR as BROKEN
from tests.code.contest_interactive_cases import RIGHT
from tests.code.contest_interactive_cases import guess_task as _task
from tests.code.helpers_code import fenced
from tests.code.test_code_redteam_round5 import NAIVE_INTERACTOR as SPLIT  # op, x = input().split()
from tests.helpers.sandbox import needs_bwrap

# The guessing game, each interactor parsing the contestant's lines its own careless way.
INDEXED = """import sys
n = int(open(sys.argv[1]).read().split()[0])
for _ in range(25):
    words = input().split()
    x = int(words[1])  # IndexError / ValueError on a line it did not expect
    if words[0] == "!":
        sys.exit(0 if x == n else 1)
    print("<" if n < x else ">" if n > x else "=", flush=True)
sys.exit(1)
"""
ASCII_ONLY = """import sys
n = int(open(sys.argv[1]).read().split()[0])
for _ in range(25):
    line = sys.stdin.buffer.readline()
    if not line:
        sys.exit(1)
    op, x = line.decode("ascii").split()  # UnicodeDecodeError / ValueError
    x = int(x)
    if op == "!":
        sys.exit(0 if x == n else 1)
    print("<" if n < x else ">" if n > x else "=", flush=True)
sys.exit(1)
"""

WRONG_PROGRAMS = [
    pytest.param("print('hello world', flush=True)", id="two words"),
    pytest.param("print('?', flush=True)", id="one word"),
    pytest.param("print('! x', flush=True)", id="not a number"),
    pytest.param("print('? 1 2 3', flush=True)", id="too many"),
    pytest.param("import sys\nsys.stdout.buffer.write(b'\\xc3\\x28 1\\n')\nsys.stdout.flush()", id="bad utf-8"),
    pytest.param("print('？ ５', flush=True)", id="fullwidth"),
    pytest.param("print('! 1', flush=True)", id="a wrong guess"),
]


@needs_bwrap
@pytest.mark.parametrize("interactor", [SPLIT, INDEXED, ASCII_ONLY], ids=["split", "indexed", "ascii"])
@pytest.mark.parametrize("program", WRONG_PROGRAMS)
def test_a_fragile_interactor_without_a_reference_makes_garbage_a_wrong_answer(interactor, program):
    verifier = ContestVerifier(timeout_s=20.0, case_timeout_s=2.0)
    task = _task(interactor)
    verdict = verifier.verify(task, fenced(program))
    assert (verdict.reward, verdict.reason.value) == (0.0, "wrong"), verdict.details


@needs_bwrap
@pytest.mark.parametrize("interactor", [SPLIT, INDEXED, ASCII_ONLY], ids=["split", "indexed", "ascii"])
def test_the_right_program_still_scores_1_under_a_fragile_interactor(interactor):
    verifier = ContestVerifier(timeout_s=20.0, case_timeout_s=2.0)
    assert verifier.verify(_task(interactor), fenced(RIGHT["python"])).reward == 1.0


@needs_bwrap
@pytest.mark.parametrize("program", [RIGHT["python"], "print('hello world', flush=True)", "pass"])
def test_an_interactor_that_fails_on_nothing_stays_a_verifier_error(program):
    verifier = ContestVerifier(timeout_s=20.0, case_timeout_s=2.0)
    verdict = verifier.verify(_task(BROKEN), fenced(program))
    assert verdict.reason.value == "verifier_error", verdict.details
    assert "interactor failed" in verdict.details["error"]
