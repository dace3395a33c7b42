"""The default stdin/stdout line comparison: what surrounds the answer is not the answer (issue 26).

A right answer printed after a leading blank line or behind a UTF-8 byte order mark failed the
line comparison (trailing blank lines and spaces were already ignored), in the family's sandbox
and in the languages runner alike; the token and float checkers accepted it. A bug fix in every
version (the family's policy for comparator and sandbox defects): the comparison is the same
code in both places (``_sandbox_stdio.normalise_output``).
"""

from __future__ import annotations

import pytest

from rlvr_code._sandbox_stdio import normalise_output
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap

SAME = [
    ("\n3\n", "3\n"),
    ("\n\n\n3", "3"),
    (" \t\n3\n", "3"),
    ("\r\n3\r\n", "3\n"),
    ("\ufeff3\n", "3\n"),
    ("\ufeff\n3 4\n5\n", "3 4\n5\n"),
    ("\n1\n\n2\n", "1\n\n2"),  # a blank line inside the answer is kept on both sides
    ("3", "\n3\n"),  # an expected output starting with a blank line reads the same way
    ("héllo wörld\n", "\ufeffhéllo wörld"),
    ("３\n", "３"),
]
DIFFERENT = [
    ("\n4\n", "3\n"),
    ("3\n4\n", "3\n"),
    ("1\n2\n", "1\n\n2\n"),  # an inner blank line is not dropped
    ("  3\n", "3\n"),  # leading spaces on a line are the line's
    ("\ufeff\n", "3\n"),
    ("\u200b3\n", "3\n"),  # a zero-width space is not a byte order mark
    ("3\ufeff\n", "3\n"),  # only a leading mark is
    ("", "3\n"),
]


@pytest.mark.parametrize(("got", "want"), SAME)
def test_leading_blank_lines_and_a_byte_order_mark_are_not_the_answer(got, want):
    assert normalise_output(got) == normalise_output(want)


@pytest.mark.parametrize(("got", "want"), DIFFERENT)
def test_what_the_answer_is_still_decides(got, want):
    assert normalise_output(got) != normalise_output(want)


PROGRAMS = [
    pytest.param("print()\nprint(int(input()) + 1)", 1.0, id="blank line first"),
    pytest.param("print('\\ufeff', end='')\nprint(int(input()) + 1)", 1.0, id="bom"),
    pytest.param(
        "import sys\nsys.stdout.buffer.write(b'\\xef\\xbb\\xbf\\n\\n' + b'%d\\n' % (int(input()) + 1))",
        1.0,
        id="bom bytes and blank lines",
    ),
    pytest.param("print()\nprint(int(input()) + 2)", 0.0, id="blank line, wrong answer"),
    pytest.param("print('\\ufeff')", 0.0, id="only a bom"),
    pytest.param("print()", 0.0, id="only a blank line"),
]


def _task() -> Task:
    cases = [{"input": "1\n", "output": "2\n"}, {"input": "41\n", "output": "42\n"}]
    return Task(id="inc", prompt="Read n and print n + 1.", answer={"format": "stdio", "cases": cases})


@needs_bwrap
@pytest.mark.parametrize(("program", "reward"), PROGRAMS)
def test_the_sandbox_comparison(program, reward):
    from rlvr_code.verifier import CodeVerifier

    verdict = CodeVerifier(timeout_s=10.0).verify(_task(), fenced(program))
    assert verdict.reward == reward, verdict.details


@needs_bwrap
@pytest.mark.parametrize(("program", "reward"), PROGRAMS)
def test_the_runner_comparison(program, reward):
    from rlvr_code.contests.sandboxed import language_spec
    from rlvr_code.languages.runner import run_sample
    from rlvr_code.verifier import CodeVerifier

    cases = _task().answer["cases"]
    report = run_sample(language_spec("python"), program + "\n", cases, CodeVerifier(timeout_s=10.0).limits(10.0))
    passed = [t.get("status") == "passed" for t in report["tests"]]
    assert (all(passed) and len(passed) == 2) == (reward == 1.0), report
