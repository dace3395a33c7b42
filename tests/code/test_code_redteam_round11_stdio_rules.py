"""Red team round 11 on contest rows: the statement's examples from a table, a rule of the input otherwise.

Rounds 8-9 left out stdin/stdout rows whose hidden cases one output or a guess between two passes.
A program may instead answer the examples from a table and every other input by a rule needing no
understanding of the problem (the first number plus one, the count of the numbers after it, the
last token, the sum after the first...). A row whose every hidden case fits such a rule, while an
example contradicts it, paid that program 1 (before: every ``PAID`` row was kept). Now such a row
with two or more hidden cases is left out at ``make`` (``env.skipped``); with one, it is kept and
marked ``metadata["hidden_rule"]``. Rows where the rule agrees with the examples too (the problem
is "print the sum"), or fits only some hidden cases, are kept.
"""

from __future__ import annotations

import warnings

import pytest

import rlvr_envs
from rlvr_code.contests.input_rules import RULES, output_rule
from rlvr_envs.types import Task
from tests.code.contest_interactive_cases import fence
from tests.helpers.sandbox import needs_bwrap


def _row(public: list[tuple[str, str]], private: list[tuple[str, str]]) -> dict:
    from tests.code.test_code_redteam_round8 import _contest_row

    return _contest_row(public, private, name="11_R. Rule")


# (examples, hidden cases, a program: the examples from a table, the rule otherwise)
PAID = [
    pytest.param(
        [("5\n", "8\n")],
        [("1\n", "2\n"), ("2\n", "3\n"), ("6\n", "7\n")],
        "n = int(input())\nprint(8 if n == 5 else n + 1)",
        id="the first number plus one",
    ),
    pytest.param(
        [("3\n4 1 9\n", "9 4 1\n")],
        [("2\n1 5\n", "1 5\n"), ("4\n2 3 7 8\n", "2 3 7 8\n")],
        "n = int(input())\nxs = input().split()\nprint('9 4 1' if xs == ['4', '1', '9'] else ' '.join(sorted(xs, key=int)))",
        id="the numbers after the first sorted",
    ),
    pytest.param(
        [("4\n1 1 2 2\n", "2\n")],
        [("3\n1 2 3\n", "3\n"), ("2\n5 6\n", "2\n")],
        "n = int(input())\nxs = input().split()\nprint(2 if xs == ['1', '1', '2', '2'] else len(xs))",
        id="a count of the numbers after the first",
    ),
    pytest.param(
        [("ab cd\n", "cd ab\n")],
        [("x y\n", "y\n"), ("p q r\n", "r\n")],
        "w = input().split()\nprint('cd ab' if w == ['ab', 'cd'] else w[-1])",
        id="the last token",
    ),
    pytest.param(
        [("2 3\n", "8\n")],
        [("1 5\n", "5\n"), ("2 4\n", "8\n")],
        "a, b = map(int, input().split())\nprint(8 if (a, b) == (2, 3) else a * b)",
        id="two numbers multiplied",
    ),
]
KEPT = [
    pytest.param(
        [("3\n1 2 3\n", "6\n")], [("2\n4 5\n", "9\n"), ("1\n7\n", "7\n")], id="the rule agrees with the example"
    ),
    pytest.param([("5\n", "8\n")], [("1\n", "2\n"), ("2\n", "5\n")], id="one hidden case does not fit"),
    pytest.param([("5\n", "8.000000\n")], [("1\n", "2.000000\n"), ("2\n", "3.000000\n")], id="floats written so"),
    pytest.param([], [("1\n", "2\n"), ("2\n", "3\n")], id="no example shown"),
]


def _make(rows: list[dict]) -> rlvr_envs.Env:
    from tests.code.contest_fixtures import codecontests_rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the env says what it left out
        return rlvr_envs.make("code-contests-v3", data=[*rows, codecontests_rows()[0]])


@pytest.mark.parametrize(("public", "private", "program"), PAID)
def test_a_row_a_rule_of_the_input_passes_is_left_out(public, private, program):
    env = _make([_row(public, private)])
    assert [t.id for t in env.tasks] == [_make([]).tasks[0].id], env.skipped
    assert len(env.skipped) == 1 and "cheap rule of its input" in env.skipped[0], env.skipped


@pytest.mark.parametrize(("public", "private"), KEPT)
def test_a_row_no_rule_answers_apart_from_its_examples_is_kept(public, private):
    env = _make([_row(public, private)])
    assert len(env.tasks) == 2 and not env.skipped, env.skipped
    assert all("hidden_rule" not in t.metadata for t in env.tasks)


def test_one_hidden_case_a_rule_fits_is_kept_and_marked():
    env = _make([_row([("5\n", "8\n")], [("6\n", "7\n")])])
    [row] = [t for t in env.tasks if t.metadata.get("hidden_rule")]
    assert row.metadata["hidden_rule"] == "the first number plus one"


def _stdio(public: list[tuple[str, str]], private: list[tuple[str, str]], checker: object = None) -> Task:
    cases = [{"input": i, "output": o} for i, o in [*public, *private]]
    answer: dict = {"format": "stdio", "cases": cases, "public_tests": list(range(len(public)))}
    if checker is not None:
        answer["checker"] = checker
    return Task(id="r11-stdio", prompt="p", answer=answer)


def test_a_checker_program_or_an_interactor_is_not_read_for_a_rule():
    public, private = [("5\n", "8\n")], [("1\n", "2\n"), ("2\n", "3\n")]
    assert output_rule(_stdio(public, private)) == ("the first number plus one", 2)
    assert output_rule(_stdio(public, private, {"type": "program", "source": "import sys"})) is None


@pytest.mark.parametrize(
    "given",
    ["", "\n\n", "x", "1 " * 40_000, "9" * 200, "-0 +3", "1e5 2", "\u0661\u0662 3", "\x00\xff", "1\n" * 100],
    ids=repr,
)
def test_rules_never_raise_nor_grow_on_odd_inputs(given):
    from rlvr_code.contests.input_rules import _answer, _parse

    for _, rule in RULES:  # a rule that does not apply gives None, never an error
        got = _answer(rule, _parse(given))
        assert got is None or len(got) < 4 * len(given) + 100


@needs_bwrap
@pytest.mark.parametrize(("public", "private", "program"), PAID[:2])
def test_the_table_and_the_rule_pays_on_the_row_as_built_before(public, private, program):
    # What the row paid before it was left out: its task built without this round's check.
    from rlvr_code.contests import rows as contest_rows

    original = contest_rows.output_rule
    contest_rows.output_rule = lambda task: None
    try:
        env = _make([_row(public, private)])
    finally:
        contest_rows.output_rule = original
    task = next(t for t in env.tasks if "11_R" in t.id)
    assert env.verifier.verify(task, fence("python", program)).reward == 1.0


def test_a_row_of_many_large_cases_is_read_once_per_case():
    import time

    big = "\n".join(["50000", " ".join(str(i % 997) for i in range(50_000))])[: (1 << 16) - 1]
    public = [("5\n", "8\n")]
    private = [(big, f"{i}\n") for i in range(200)]
    started = time.process_time()
    assert output_rule(_stdio(public, private)) is None
    assert time.process_time() - started < 2.0  # ~0.1 s: one parse, ~30 cheap rules on it
