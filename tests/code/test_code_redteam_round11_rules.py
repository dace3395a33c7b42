"""Red team round 11 on the code family: the prompt's example from a table, a WIDER rule otherwise.

Round 10 (``-v7``, ``hidden_tests="rules"``) derived tests against ten rules of one argument
(itself, length, sum, largest, smallest, first, last, sorted, reversed, set). A policy is not held
to those ten: under ``-v7`` 43 of MBPP's 973 tasks still had hidden tests another rule passes that
contradicts the prompt's example, so a table and that rule scored 1 (``n + 1``, ``n // 2``, the
penultimate item, two arguments multiplied, the distinct items, ...). Also, a task whose reference
answers floats got no derived test at all (round 10's wide run kept plain literals only): a rule
the hidden tests fit stayed paid (MBPP/14 ``l * b * h / 2``: its hidden tests fit ``l * h``).

Now ``derived_rules_wide`` adds families of rules (a number's neighbours, items and parts,
counts and aggregates, orders and shapes, a string's case, any ordered pair of arguments under
arithmetic, comparison, indexing and membership), counted where they contradict a shown example,
and float answers get tests within the tolerance when a rule still passes. The tasks below are
invented (other names, other inputs than MBPP's) and each fits one family. Each row's "before"
paid under the round-10 code (its hidden tests fit no round-10 rule, or its reference answers
floats); after, the table and the rule score 0 and the reference 1.
"""

from __future__ import annotations

import pytest

from rlvr_code import derived
from rlvr_code.derived_rules import _applies, called_tests, passing_rules, rule_passable, rules
from rlvr_code.derived_rules_wide import wide_rules
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, local_run, shown_hidden_task, table_then
from tests.helpers.sandbox import needs_bwrap


def _task(name: str, shown: str, hidden: list[str], solution: str) -> Task:
    return shown_hidden_task("r11", name, shown, hidden, solution)


# (task, the rule its hidden tests fit, a program's expression of it on ``args``)
TRAPPED = [
    (
        _task(
            "next_prime",
            "assert next_prime(7) == 11",
            ["assert next_prime(4) == 5", "assert next_prime(10) == 11"],
            "def next_prime(n):\n    k = n + 1\n    while any(k % d == 0 for d in range(2, k)):\n"
            "        k += 1\n    return k\n",
        ),
        "plus1(arg0)",
        "args[0] + 1",
    ),
    (
        _task(
            "second_smallest",
            "assert second_smallest([5, 1, 4]) == 4",
            ["assert second_smallest([1, 2, 9]) == 2", "assert second_smallest([0, 3, 7, 8]) == 3"],
            "def second_smallest(xs):\n    return sorted(set(xs))[1]\n",
        ),
        "second(arg0)",
        "args[0][1]",
    ),
    (
        _task(
            "lcm",
            "assert lcm(4, 6) == 12",
            ["assert lcm(3, 5) == 15", "assert lcm(2, 7) == 14"],
            "import math\n\ndef lcm(a, b):\n    return a * b // math.gcd(a, b)\n",
        ),
        "mul(arg0, arg1)",
        "args[0] * args[1]",
    ),
    (
        _task(
            "gap",
            "assert gap(9, 4) == 5",
            ["assert gap(2, 6) == 4", "assert gap(1, 8) == 7"],
            "def gap(a, b):\n    return abs(a - b)\n",
        ),
        "sub(arg1, arg0)",
        "args[1] - args[0]",
    ),
    (
        _task(
            "headline",
            "assert headline('war and peace') == 'War and Peace'",
            ["assert headline('dune') == 'Dune'", "assert headline('the hobbit') == 'The Hobbit'"],
            "SMALL = {'and', 'of', 'the', 'a', 'in'}\n\ndef headline(s):\n    words = s.split()\n"
            "    return ' '.join(w if i and w in SMALL else w.capitalize() for i, w in enumerate(words))\n",
        ),
        "title(arg0)",
        "args[0].title()",
    ),
    (
        _task(
            "positive_kinds",
            "assert positive_kinds([1, 1, -2, 3]) == 2",
            ["assert positive_kinds([4, 4, 5]) == 2", "assert positive_kinds([7, 7, 9, 9, 8]) == 3"],
            # the hidden tests hold no number below 1, so counting the distinct items fits them
            "def positive_kinds(xs):\n    return len({x for x in xs if x > 0})\n",
        ),
        "distinct_count(arg0)",
        "len(set(args[0]))",
    ),
]
# The reference answers floats and the hidden tests fit a round-10 rule (the first argument): round
# 10 derived nothing (its wide run kept plain literals), so the rule was paid under -v7.
FLOAT_ANSWERS = (
    _task(
        "triangle_area",
        "assert triangle_area(3, 4) == 6.0",
        ["assert triangle_area(5, 2) == 5.0", "assert triangle_area(7, 2) == 7.0"],
        "def triangle_area(base, height):\n    return base * height / 2\n",
    ),
    "itself(arg0)",
    "float(args[0])",
)
# The wider rule agrees with the shown example too: likely the function (a + b); not counted.
RULE_IS_FUNCTION = _task(
    "plus",
    "assert plus(1, 2) == 3",
    ["assert plus(2, 5) == 7", "assert plus(10, -4) == 6"],
    "def plus(a, b):\n    return a + b\n",
)


def _ids(row: tuple[Task, str, str]) -> str:
    return row[0].id


def _local_run(program: str, cases: list[dict[str, str]]) -> list[str | None]:
    return local_run(program, cases)


def _passes(program: str, tests: list[str]) -> bool:
    run = program + "\n" + "\n".join(tests) + "\nprint('ok')\n"
    return _local_run(run, [{"input": "", "output": ""}]) == ["ok\n"]


# -- without a sandbox -----------------------------------------------------------------------------


@pytest.mark.parametrize("row", TRAPPED, ids=_ids)
def test_hidden_tests_a_wider_rule_passes_are_found(row):
    task, rule, attack = row
    called = called_tests(task, task.answer["tests"][1:])
    # Before: no round-10 rule passes the hidden tests (nothing was derived for the task)...
    assert not [name for name, old in rules() if all(_applies(old, args, want) for args, want in called)]
    assert rule in passing_rules(task) and rule_passable(task)
    assert derived.needs_derived(task, "rules")
    hidden = task.answer["tests"][1:]
    assert _passes(table_then(task, attack), task.answer["tests"])  # ...and the table and rule passed all
    assert _passes(task.answer["canonical_solution"], hidden)


@pytest.mark.parametrize("row", [*TRAPPED, FLOAT_ANSWERS], ids=_ids)
def test_derived_tests_fail_the_rule_and_the_reference_passes_them(row):
    task, _, attack = row
    made = derived.guard_rules(task, _local_run)
    assert isinstance(made, Task) and len(made.answer["tests"]) > len(task.answer["tests"])
    assert not rule_passable(made)
    assert _passes(task.answer["canonical_solution"], made.answer["tests"])
    assert not _passes(table_then(task, attack), made.answer["tests"])


def test_float_answers_get_tests_within_a_tolerance():
    task, rule, attack = FLOAT_ANSWERS
    assert rule in passing_rules(task)
    added = derived.guard_rules(task, _local_run).answer["tests"][len(task.answer["tests"]) :]
    assert added and all(t.startswith("assert abs(triangle_area(") for t in added)
    honest = "def triangle_area(base, height):\n    return 0.5 * (height * base)\n"  # other last bits
    made = task.answer["tests"] + added
    assert _passes(honest, made) and not _passes(table_then(task, attack), made)


def test_a_wider_rule_that_is_the_function_derives_nothing():
    assert "add(arg0, arg1)" in passing_rules(RULE_IS_FUNCTION)
    assert derived.guard_rules(RULE_IS_FUNCTION, _local_run) is RULE_IS_FUNCTION


# A wider rule passing every test, the shown one too, without being the function (MBPP/71's shape).
AGREEING = (
    _task(
        "sort_in_place",
        "assert sort_in_place([3, 1, 2]) == [1, 2, 3]",
        ["assert sort_in_place([9, 4]) == [4, 9]", "assert sort_in_place([5, 0, 7]) == [0, 5, 7]"],
        "def sort_in_place(xs):\n    xs = list(xs)\n    xs.sort()\n    return xs\n",
    ),
    "sorted_distinct(arg0)",
    "sorted(set(args[0]))",
)


def test_a_wider_rule_agreeing_with_every_test_is_told_apart_by_the_reference():
    task, rule, attack = AGREEING
    assert rule in passing_rules(task) and _passes(attack.join(["_r = lambda *args: ", ""]) + "\n", [])
    made = derived.guard_rules(task, _local_run)
    assert isinstance(made, Task) and rule not in passing_rules(made)
    cheat = f"def sort_in_place(*args):\n    return {attack}\n"
    assert _passes(cheat, task.answer["tests"]) and not _passes(cheat, made.answer["tests"])
    assert _passes(task.answer["canonical_solution"], made.answer["tests"])


@pytest.mark.parametrize(
    "args",
    [
        (),
        (None,),
        ([],),
        ({},),
        (10**400,),
        ("x" * 2000, 10**9),
        ([0] * 2000, 10**9),
        (10**9, 10**9),
        (2.5, 10**9),
        ([[1], "a", None],),
        ("",),
        ({1: 2},),
        (1.5, float("nan")),
        (b"x", 3),
        ("%s", ("a",)),
        (True, False),
    ],
    ids=repr,
)
def test_wider_rules_never_raise_nor_build_huge_values(args):
    for _, rule in wide_rules():  # a rule that does not apply reads False, never an error
        assert _applies(rule, args, 0) in (True, False)
        try:
            value = rule(args)
        except Exception:
            continue
        assert len(repr(value)) < 300_000  # a repeat is bounded: no literal makes gigabytes


def test_every_wider_rule_has_its_own_name():
    names = [name for name, _ in wide_rules()]
    assert len(names) == len(set(names)) and not set(names) & {name for name, _ in rules()}


# -- in the sandbox --------------------------------------------------------------------------------


def _verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, hidden_tests="rules", credit_tests="corrected")


@needs_bwrap
@pytest.mark.parametrize("row", [*TRAPPED[:3], FLOAT_ANSWERS], ids=_ids)
def test_a_table_and_a_wider_rule_is_not_paid(row):
    task, _, attack = row
    assert _verifier().verify(task, fenced(table_then(task, attack))).reward == 0.0
    assert _verifier().verify(task, fenced(task.answer["canonical_solution"])).reward == 1.0


@needs_bwrap
def test_the_shipped_attacker_tries_the_wider_rules_and_finds_no_hole_under_v7():
    import warnings

    import rlvr_envs
    from rlvr_envs.redteam import run_redteam

    rows = [
        {"task_id": 9810 + i, "text": t.prompt, "code": t.answer["canonical_solution"], "test_list": t.answer["tests"]}
        for i, (t, _, _) in enumerate(TRAPPED[:3])
    ]
    holes = {}
    for version in ("v6", "v7"):  # -v6 derives nothing against rules: the attacker's rules are paid there
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the deprecated id, as it was
            env = rlvr_envs.make(f"code-mbpp-{version}", data=rows)
        report = run_redteam(env, quick=False, n=3, seed=0, classes=["code_guess"])
        assert report.raised == 0, report.summary_text()
        holes[version] = sorted(h.variant for h in report.result("code_guess").holes)
    assert len(holes["v6"]) >= 3 and holes["v7"] == [], holes
