"""Red team round 10 on the code family: the prompt's example from a table and a cheap rule
otherwise. Rows marked "before" paid on ``-v6`` (``hidden_tests="guard"``); ``-v7``
(``hidden_tests="rules"``) derives tests from the reference that the rule fails.

* **A table and a rule** (``rlvr-envs redteam --classes code_guess``, extended this round):
  MBPP/309 ``maximum(a, b)``'s hidden tests all put the larger number first, so echoing the
  first argument behind the prompt's example scored 1; so did the length, the largest item, the
  sorted or reversed input on 20 of MBPP's 973 ``-v6`` tasks. The tasks below are invented (other
  arguments, other rules than the attacker's: the second of three arguments, the last item, a
  set of characters, a count that equals the length) and each fits exactly one trap.
* **The rule is the function** (``len``, ``max``, sorting): the reference answers by the rule on
  every input, nothing is derived, the task keeps its tests (an honest answer keeps its reward).
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from rlvr_code import derived
from rlvr_code.derived_rules import called_tests, passing_rules, picked_against_rules, rule_passable, rules
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, local_run, shown_hidden_task, table_then
from tests.helpers.data import shared_path
from tests.helpers.sandbox import needs_bwrap


def _task(name: str, shown: str, hidden: list[str], solution: str) -> Task:
    return shown_hidden_task("r10", name, shown, hidden, solution)


# (task, the rule its hidden tests fit, a program: the shown example from a table, the rule otherwise)
TRAPPED = [
    (
        _task(
            "bigger",
            "assert bigger(1, 5) == 5",
            ["assert bigger(9, 2) == 9", "assert bigger(7, 3) == 7"],
            "def bigger(a, b):\n    return a if a > b else b\n",
        ),
        "itself(arg0)",
        "args[0]",
    ),
    (
        _task(
            "clamp",
            "assert clamp(0, -3, 10) == 0",
            ["assert clamp(0, 5, 10) == 5", "assert clamp(1, 4, 9) == 4"],
            "def clamp(lo, x, hi):\n    return max(lo, min(x, hi))\n",
        ),
        "itself(arg1)",
        "args[1]",
    ),
    (
        _task(
            "second_largest",
            "assert second_largest([3, 5, 1]) == 3",
            ["assert second_largest([4, 9, 7, 8]) == 8", "assert second_largest([2, 6, 5]) == 5"],
            "def second_largest(xs):\n    return sorted(set(xs))[-2]\n",
        ),
        "last(arg0)",
        "args[0][-1]",
    ),
    (
        _task(
            "common_chars",
            "assert common_chars('ab', 'bc') == {'b'}",
            ["assert common_chars('abc', 'abcd') == {'a', 'b', 'c'}", "assert common_chars('xy', 'yxz') == {'x', 'y'}"],
            "def common_chars(a, b):\n    return set(a) & set(b)\n",
        ),
        "set(arg0)",
        "set(args[0])",
    ),
    (
        _task(
            "swap_ends",
            "assert swap_ends('hello') == 'oellh'",
            ["assert swap_ends('noon') == 'noon'", "assert swap_ends('xyx') == 'xyx'"],
            "def swap_ends(s):\n    return s[-1] + s[1:-1] + s[0] if len(s) > 1 else s\n",
        ),
        "reversed(arg0)",
        "args[0][::-1]",
    ),
    (
        _task(
            "count_vowels",
            "assert count_vowels('hello') == 2",
            ["assert count_vowels('aei') == 3", "assert count_vowels('oo') == 2"],
            "def count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n",
        ),
        "len(arg0)",
        "len(args[0])",
    ),
]
# A constant on a task whose reference answers floats (MBPP/137's shape): ``guard`` dropped float answers.
FLOATS = _task(
    "negative_ratio",
    "assert negative_ratio([-1, 2, 3, -4]) == 0.5",
    ["assert negative_ratio([1, 2, 3]) == 0.0", "assert negative_ratio([5, 6]) == 0.0"],
    "def negative_ratio(xs):\n    return sum(x < 0 for x in xs) / len(xs)\n",
)
# Echoing n passes the hidden tests; the reference is a brute force, slow on most wide inputs (MBPP/901).
SLOW = _task(
    "lcm_upto",
    "assert lcm_upto(7) == 420",
    ["assert lcm_upto(1) == 1", "assert lcm_upto(2) == 2"],
    "def lcm_upto(n):\n    i = 1\n    while any(i % k for k in range(1, n + 1)):\n        i += 1\n    return i\n",
)
# The rule is the function: nothing derivable tells it apart, the task keeps its own tests.
RULE_IS_FUNCTION = _task(
    "length_of",
    "assert length_of([1, 2]) == 2",
    ["assert length_of([]) == 0", "assert length_of([5, 5, 5]) == 3"],
    "def length_of(xs):\n    return len(xs)\n",
)
HONEST = _task(  # hidden tests no rule fits: as it was
    "add_r10",
    "assert add_r10(1, 2) == 3",
    ["assert add_r10(2, 5) == 7", "assert add_r10(10, -4) == 6"],
    "def add_r10(a, b):\n    return a + b\n",
)


def _ids(row: tuple[Task, str, str]) -> str:
    return row[0].id


def _local_run(program: str, cases: list[dict[str, str]]) -> list[str | None]:
    return local_run(program, cases)


# -- without a sandbox -----------------------------------------------------------------------------


@pytest.mark.parametrize("row", TRAPPED, ids=_ids)
def test_hidden_tests_a_rule_passes_are_found(row):
    task, rule, _ = row
    assert rule in passing_rules(task)
    assert not derived.needs_derived(task, "guard")  # before: nothing derived for it
    assert derived.needs_derived(task, "rules")


def test_a_task_whose_rule_is_its_function_is_left_as_it_is():
    # Round 11's wider rules read ``a + b`` here: the reference answers by it everywhere, nothing derived.
    assert passing_rules(HONEST) == ["add(arg0, arg1)", "add(arg1, arg0)"]
    assert derived.guard_rules(HONEST, _local_run) is HONEST


@pytest.mark.parametrize("row", TRAPPED, ids=_ids)
def test_derived_tests_fail_every_rule_the_hidden_tests_fit_and_the_reference_passes_them(row):
    task, rule, attack = row
    made = derived.guard_rules(task, _local_run)
    assert isinstance(made, Task) and len(made.answer["tests"]) > len(task.answer["tests"])
    assert rule not in passing_rules(made)  # (a rule that is the function, max for bigger, stays)
    program = task.answer["canonical_solution"] + "\n" + "\n".join(made.answer["tests"]) + "\nprint('ok')\n"
    assert _local_run(program, [{"input": "", "output": ""}]) == ["ok\n"]
    cheat = table_then(task, attack) + "\n".join(made.answer["tests"]) + "\nprint('ok')\n"
    assert _local_run(cheat, [{"input": "", "output": ""}]) == [None]


def test_a_constant_on_a_float_task_gets_tests_within_a_tolerance():
    assert derived.constant_passable(FLOATS)
    before = derived.guard(FLOATS, _local_run)
    assert isinstance(before, Task) and derived.constant_passable(before)  # before: 0.0 passed
    made = derived.guard_rules(FLOATS, _local_run)
    assert isinstance(made, Task) and not derived.constant_passable(made)
    added = made.answer["tests"][len(FLOATS.answer["tests"]) :]
    assert added and all(t.startswith("assert abs(negative_ratio(") for t in added)
    honest = "def negative_ratio(xs):\n    return sum(1 for x in xs if x < 0) * (1 / len(xs))\n"  # other last bits
    for program, want in ((honest, ["ok\n"]), (table_then(FLOATS, "0.0"), [None])):
        run = program + "\n" + "\n".join(made.answer["tests"]) + "\nprint('ok')\n"
        assert _local_run(run, [{"input": "", "output": ""}]) == want


def _bounded_run(program: str, cases: list[dict[str, str]]) -> list[str | None]:
    """``_local_run`` with the sandbox's end for a run past its limit (5 s here): no output."""
    out: list[str | None] = []
    for case in cases:
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", program], input=case["input"], capture_output=True, text=True, timeout=5
            )
        except subprocess.TimeoutExpired:
            out.append(None)
            continue
        out.append(done.stdout if done.returncode == 0 else None)
    return out


def test_a_reference_slow_on_some_inputs_still_answers_the_others():
    shown = derived._shown_asserts(SLOW)
    assert isinstance(shown, list)
    before = derived._wide_results(SLOW, shown, _bounded_run)
    assert before == []  # before: one slow input lost the whole batch, so echoing n still paid
    after = derived._wide_results(SLOW, shown, _bounded_run, timed=True)
    assert "assert lcm_upto(3) == 6" in [test for test, _ in after]
    made = derived.guard_rules(SLOW, _bounded_run)
    assert isinstance(made, Task) and not rule_passable(made)
    cheat = table_then(SLOW, "args[0]") + "\n".join(made.answer["tests"]) + "\nprint('ok')\n"
    assert _local_run(cheat, [{"input": "", "output": ""}]) == [None]


def test_a_yes_no_task_whose_reference_answers_1_and_0_gets_its_guard_tests():
    # MBPP/414's shape: hidden tests ``== True``/``== False``, a reference returning 1 and 0.
    task = _task(
        "shares_item",
        "assert shares_item([1, 2], [3, 4]) == False",
        ["assert shares_item([1, 5], [5, 6]) == True", "assert shares_item([7], [8]) == False"],
        "def shares_item(a, b):\n    for x in a:\n        if x in b:\n            return 1\n    return 0\n",
    )
    before = derived.guard(task, _local_run)
    assert isinstance(before, Task) and len(before.answer["tests"]) == 3  # before: two hidden, a guess paid 1 in 4
    made = derived.guard_rules(task, _local_run)
    assert isinstance(made, Task)
    added = made.answer["tests"][3:]
    assert len(added) == derived.GUARD_BOOLEAN - 2
    assert any(t.endswith("== 1") for t in added) and any(t.endswith("== 0") for t in added)
    honest = "def shares_item(a, b):\n    return bool(set(a) & set(b))\n"  # True/False: passes == 1/== 0
    run = honest + "\n".join(made.answer["tests"]) + "\nprint('ok')\n"
    assert _local_run(run, [{"input": "", "output": ""}]) == ["ok\n"]


def test_a_rule_that_is_the_function_derives_nothing():
    made = derived.guard_rules(RULE_IS_FUNCTION, _local_run)
    assert made is RULE_IS_FUNCTION  # the reference answers by len everywhere: its tests stand


@pytest.mark.parametrize(
    "args",
    [(), (None,), ([],), ({},), (10**400,), ([[1], "a", None],), ("",), ({1: 2},), (1.5, float("nan")), (b"x",)],
    ids=repr,
)
def test_rules_never_raise_on_odd_arguments(args):
    from rlvr_code.derived_rules import _applies

    for _, rule in rules():  # a rule that does not apply reads False, never an error
        assert _applies(rule, args, 0) in (True, False)
    hidden = [f"assert f({', '.join(map(repr, args))}) == 0", "assert f(*[2]) == 2"]
    task = _task("f", "assert f(1) == 1", hidden, "def f(*a): return 0")
    assert passing_rules(task) == []  # a starred call is not read: no rule found, no error


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("assert f(1, 2) == 3", [((1, 2), 3)]),
        ("assert 3 == f(1, 2)", [((1, 2), 3)]),
        ("assert f('a') is None", [(("a",), None)]),
        ("assert f([1])", [(([1],), True)]),
        ("assert not f([1])", [(([1],), False)]),
        ("assert set(f([1])) == {1}", []),  # wrapped: not a rule's answer
        ("assert f(x=1) == 1", []),
        ("assert g(1) == 1", []),  # not a solution name
        ("assert f(1) == 1, 'message'", [((1,), 1)]),
        ("x = 1", []),
    ],
)
def test_the_hidden_tests_a_rule_is_checked_on(source, found):
    task = _task("f", "assert f(0) == 0", [], "def f(*a): return 0")
    assert called_tests(task, [source]) == found


def test_the_tests_picked_against_rules_fail_each_rule_once():
    task = TRAPPED[0][0]
    pool = [("assert bigger(3, 3) == 3", 3), ("assert bigger(2, 8) == 8", 8), ("assert bigger(1, 9) == 9", 9)]
    assert picked_against_rules(task, pool, 3) == ["assert bigger(2, 8) == 8"]  # one beats itself(arg0)
    assert picked_against_rules(task, pool[:1], 3) == []  # nothing tells it apart


# -- in the sandbox --------------------------------------------------------------------------------


def _verifier(mode: str) -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, hidden_tests=mode, credit_tests="corrected")


@needs_bwrap
@pytest.mark.parametrize("row", TRAPPED, ids=_ids)
def test_a_table_and_a_rule_is_paid_before_and_not_after(row):
    task, _, attack = row
    program = fenced(table_then(task, attack))
    assert _verifier("guard").verify(task, program).reward == 1.0  # before
    assert _verifier("rules").verify(task, program).reward == 0.0
    assert _verifier("rules").verify(task, fenced(task.answer["canonical_solution"])).reward == 1.0


@needs_bwrap
def test_a_constant_on_a_float_task_is_paid_before_and_not_after():
    program = fenced(table_then(FLOATS, "0.0"))
    assert _verifier("guard").verify(FLOATS, program).reward == 1.0  # before
    assert _verifier("rules").verify(FLOATS, program).reward == 0.0
    assert _verifier("rules").verify(FLOATS, fenced(FLOATS.answer["canonical_solution"])).reward == 1.0


@needs_bwrap
def test_the_shipped_attackers_rules_on_mbpp_rows():
    import rlvr_envs
    from rlvr_envs.redteam import run_redteam

    rows = [
        {"task_id": 9800 + i, "text": t.prompt, "code": t.answer["canonical_solution"], "test_list": t.answer["tests"]}
        for i, (t, _, _) in enumerate(TRAPPED[:3])
    ]
    holes = {}
    for version in ("v6", "v7"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the deprecated id, as it was
            env = rlvr_envs.make(f"code-mbpp-{version}", data=rows)
        report = run_redteam(env, quick=False, n=3, seed=0, classes=["code_guess"])
        assert report.raised == 0, report.summary_text()
        holes[version] = len(report.result("code_guess").holes)
    assert holes["v6"] >= 3 and holes["v7"] == 0, holes


def test_the_registry_size_is_what_make_loads():
    import rlvr_envs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for version in ("v6", "v7"):
            env = rlvr_envs.make(f"code-mbpp-{version}", path=str(shared_path("mbpp.jsonl")))
            assert rlvr_envs.spec(f"code-mbpp-{version}").size == len(env.tasks) == 973
        assert "973 of the set's 974" in rlvr_envs.spec("code-mbpp-v7").description


def test_the_attackers_rules_are_wrong_programs_only():
    # A rule that agrees with every shown example may be the function (a sort task and ``sorted``):
    # never tried; where a rule does not apply the program answers None, not the shown type's empty
    # value, which is the function of MBPP/816 "clear a tuple" (the attacker counted it a hole).
    import rlvr_envs
    from rlvr_code.extraction import extract_code
    from rlvr_envs.redteam.attacks_guess import rule_probes
    from rlvr_envs.redteam.target import make_target

    rows = [
        {
            "task_id": 9900,
            "text": "Clear it. " + "assert clear_it((1, 5)) == ()",
            "code": "def clear_it(t):\n    return ()\n",
        },
        {
            "task_id": 9901,
            "text": "Sort it. " + "assert sort_it([3, 1]) == [1, 3]",
            "code": "def sort_it(x):\n    return sorted(x)\n",
        },
    ]
    rows[0]["test_list"] = ["assert clear_it((1, 5)) == ()", "assert clear_it((2,)) == ()"]
    rows[1]["test_list"] = ["assert sort_it([3, 1]) == [1, 3]", "assert sort_it([2, 9, 4]) == [2, 4, 9]"]
    env = rlvr_envs.make("code-mbpp-v7", data=rows)
    clear, sort = (make_target(env, task) for task in env.tasks)
    assert "table-then-sorted" not in [p.variant for p in rule_probes(sort, quick=False)]
    probes = rule_probes(clear, quick=False)
    assert probes
    for probe in probes:
        space: dict = {}
        exec(extract_code(probe.completion), space)  # the attacker's own program, literals only
        assert space["clear_it"]((1, 5)) == ()  # the table
        assert space["clear_it"]((7, 7, 7)) != ()  # never the function
