"""Red team round 9 on the code family (issue 26): yes/no tasks a guess passes, and constants that
still passed where no near input told the reference apart. Rows marked "before" failed on the
commit before (``-v5``, ``hidden_tests="discriminate"``); the others are held and stay held.

* **A guess on a yes/no task**: 77 MBPP tasks have two hidden asserts, one True and one False; a
  program answering the prompt's example from a table and guessing otherwise (a hash of its
  arguments) passed 1 time in 4, all-or-nothing. ``-v6`` (``hidden_tests="guard"``) derives
  yes/no tests from the reference up to ``GUARD_BOOLEAN`` hidden ones, both answers about as
  common among them.
* **A table and a constant where the near inputs all get the constant**: MBPP/20 (Woodall numbers)
  and MBPP/598 (Armstrong numbers) answer False on every input near the shown ones, so ``-v5``
  derived nothing and ``return False`` plus the prompt's example scored 1. ``-v6`` searches
  further (``derived_inputs.wide_inputs``: ints swept, strings and lists cut, repeated, reversed,
  flags flipped) in one reference run.
"""

from __future__ import annotations

import hashlib

import pytest

from rlvr_code import derived
from rlvr_code.derived_inputs import BATCH_MARK, batch_results, wide_inputs
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced, local_run, shown_hidden_task
from tests.helpers.sandbox import needs_bwrap


def _local_run(program: str, cases: list[dict[str, str]]) -> list[str | None]:
    return local_run(program, cases)


def _task(name: str, shown: str, hidden: list[str], solution: str) -> Task:
    return shown_hidden_task("r9", name, shown, hidden, solution)


# Yes/no tasks with few hidden tests, both answers among them (a constant fails; a guess does not).
EVEN = _task(
    "is_even_r9",
    "assert is_even_r9(4) == True",
    ["assert is_even_r9(7) == False", "assert is_even_r9(10) == True"],
    "def is_even_r9(n):\n    return n % 2 == 0\n",
)
VOWEL = _task(
    "starts_vowel",
    "assert starts_vowel('apple')",
    ["assert not starts_vowel('pear')", "assert starts_vowel('orange')"],
    "def starts_vowel(s):\n    return s[:1].lower() in 'aeiou'\n",
)
SORTED = _task(
    "is_sorted_r9",
    "assert is_sorted_r9([1, 2, 3]) is True",
    ["assert is_sorted_r9([3, 1, 2]) is False", "assert is_sorted_r9([0, 5, 9]) is True"],
    "def is_sorted_r9(xs):\n    return all(a <= b for a, b in zip(xs, xs[1:]))\n",
)
# Rare answers: every input near the shown ones gets the one answer the hidden tests expect.
WOODALL = _task(
    "is_woodall_r9",
    "assert is_woodall_r9(383) == True",
    ["assert is_woodall_r9(254) == False", "assert is_woodall_r9(200) == False"],
    "def is_woodall_r9(x):\n    return any(n * 2**n - 1 == x for n in range(1, 64))\n",
)
REPEATS = _task(
    "all_same",
    "assert all_same(['one', 'one', 'one']) == True",
    ["assert all_same(['one', 'Two', 'Three']) == False", "assert all_same(['big', 'python', 'Dj']) == False"],
    "def all_same(xs):\n    return len(set(xs)) == 1\n",
)
GUESSED = [EVEN, VOWEL, SORTED]
RARE = [WOODALL, REPEATS]


def _lookup_then(task: Task, value: str) -> str:
    """The prompt's example (it expects True) from a table, ``value`` otherwise."""
    name = task.answer["solution_names"][0]
    shown = task.answer["tests"][0]
    arg = shown.split("(", 1)[1].rsplit(")", 1)[0]
    return f"import hashlib\ndef {name}(*args):\n    if args == ({arg},):\n        return True\n    return {value}\n"


def _guess(task: Task, seed: int) -> str:
    """The prompt's example from a table, a hash of the arguments otherwise."""
    return _lookup_then(task, f"hashlib.sha256(repr((args, {seed})).encode()).digest()[0] % 2 == 0")


def _verifier(mode: str) -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, hidden_tests=mode, credit_tests="corrected")


def _guesses_paid(task: Task, verifier: CodeVerifier, seeds: range) -> int:
    return sum(verifier.verify(task, fenced(_guess(task, s))).reward == 1.0 for s in seeds)


# -- without a sandbox -----------------------------------------------------------------------------


@pytest.mark.parametrize("task", GUESSED, ids=lambda t: t.id)
def test_a_yes_no_task_with_few_hidden_tests_is_found(task):
    assert derived.guessable(task)
    assert derived.needs_derived(task, "guard")
    assert not derived.needs_derived(task, "discriminate")  # before: nothing derived for it


def test_a_task_with_enough_hidden_yes_no_tests_or_other_answers_is_left_as_it_is():
    many = [f"assert is_even_r9({n}) == {n % 2 == 0}" for n in range(1, derived.GUARD_BOOLEAN + 2)]
    enough = _task("is_even_r9", many[0], many[1:], "def is_even_r9(n):\n    return n % 2 == 0\n")
    numbers = _task(
        "add_r9",
        "assert add_r9(1, 2) == 3",
        ["assert add_r9(2, 2) == 4", "assert add_r9(3, 5) == 8"],
        "def add_r9(a, b): return a+b",
    )
    for task in (enough, numbers):
        assert not derived.guessable(task)
        assert not derived.needs_derived(task, "guard")


@pytest.mark.parametrize("task", GUESSED + RARE, ids=lambda t: t.id)
def test_guarded_tests_hold_both_answers_and_the_reference_passes_them(task):
    made = derived.guard(task, _local_run)
    assert isinstance(made, Task)
    found = derived.hidden_booleans(made)
    assert found is not None and len(found) >= derived.GUARD_BOOLEAN
    assert abs(found.count(True) - found.count(False)) <= 2  # a biased guess fares no better
    assert not derived.constant_passable(made)
    # The reference passes every test, derived ones included.
    program = task.answer["canonical_solution"] + "\n" + "\n".join(made.answer["tests"]) + "\nprint('ok')\n"
    assert _local_run(program, [{"input": "", "output": ""}]) == ["ok\n"]


def test_a_hash_guess_passes_the_guarded_tests_no_more_than_chance():
    # Over the three tasks and 32 seeds each: a guess passes 8 fair yes/no tests 1 time in 256.
    paid = 0
    for task in GUESSED:
        made = derived.guard(task, _local_run)
        assert isinstance(made, Task)
        name = task.answer["solution_names"][0]
        for seed in range(32):
            program = _guess(task, seed) + "\n" + "\n".join(made.answer["tests"][1:]) + "\nprint('passed')\n"
            paid += _local_run(program, [{"input": "", "output": ""}]) == ["passed\n"]
        assert name in made.answer["tests"][-1]
    assert paid <= 2


def test_wide_inputs_sweep_small_ints_and_are_the_same_in_every_process():
    shown = derived._shown_asserts(WOODALL)
    assert isinstance(shown, list)
    first = wide_inputs(shown, WOODALL.id)
    assert first == wide_inputs(shown, WOODALL.id)
    ints = {args[0] for _, args, _ in first}
    assert set(range(96)) <= ints and max(ints) > 383
    assert all(isinstance(v, int) and v >= 0 for v in ints)  # a sign kept


@pytest.mark.parametrize(
    ("text", "count", "expected"),
    [
        (None, 2, [None, None]),
        ("", 1, [None]),
        ("noise" + BATCH_MARK + "['1', None]", 2, ["1", None]),
        (BATCH_MARK + "['1']" + BATCH_MARK + "['2', '3']", 2, ["2", "3"]),  # the driver's mark is the last
        (BATCH_MARK + "['1', '2', '3']", 2, [None, None]),  # not the count asked: nothing
        (BATCH_MARK + "[1, b'x']", 2, [None, None]),
        (BATCH_MARK + "[" * 5000, 1, [None]),
        (BATCH_MARK + "{'a': 1}", 1, [None]),
    ],
)
def test_batch_results_read_only_the_drivers_list(text, count, expected):
    assert batch_results(text, count) == expected


def test_the_older_modes_derive_what_they_did():
    # -v3..-v5 keep their verdicts: no guard for a yes/no task, the near inputs only.
    assert derived.with_hidden_tests(EVEN, _local_run, "discriminate") is EVEN
    made = derived.derive(WOODALL, _local_run)
    assert made is WOODALL  # v5: nothing near 383/254/200 is a Woodall number


# -- in the sandbox --------------------------------------------------------------------------------


@needs_bwrap
@pytest.mark.parametrize("task", GUESSED, ids=lambda t: t.id)
def test_a_guess_on_a_yes_no_task_is_paid_before_and_not_after(task):
    seeds = range(16)
    before = _guesses_paid(task, _verifier("discriminate"), seeds)
    after = _guesses_paid(task, _verifier("guard"), seeds)
    assert before >= 1  # before: 1 in 4
    assert after == 0
    verifier = _verifier("guard")
    assert verifier.verify(task, fenced(task.answer["canonical_solution"])).reward == 1.0


@needs_bwrap
@pytest.mark.parametrize("task", RARE, ids=lambda t: t.id)
def test_a_table_and_a_constant_is_paid_before_and_not_after(task):
    program = fenced(_lookup_then(task, "False"))
    assert _verifier("discriminate").verify(task, program).reward == 1.0  # before
    assert _verifier("guard").verify(task, program).reward == 0.0
    assert _verifier("guard").verify(task, fenced(task.answer["canonical_solution"])).reward == 1.0


def test_the_guess_program_is_a_guess():
    # The attacker ignores the task: its answers are spread over both values.
    answers = {hashlib.sha256(repr(((n,), 0)).encode()).digest()[0] % 2 == 0 for n in range(20)}
    assert answers == {True, False}


# -- stdin/stdout rows a guess between two answers passes ------------------------------------------
def _contest_row(public: list[tuple[str, str]], private: list[tuple[str, str]]) -> dict:
    from tests.code.test_code_redteam_round8 import _contest_row as row

    return row(public, private, name="9_Y. Guess")


def _cases(answers: list[str]) -> list[tuple[str, str]]:
    return [(f"{n + 3}\n", f"{a}\n") for n, a in enumerate(answers)]


GUESSABLE_ROWS = [  # before: kept, and a guess between the two answers passed 1 time in 4 (8, 16)
    pytest.param([("1\n", "NO\n")], _cases(["YES", "NO"]), id="YES/NO, two hidden"),
    pytest.param([], _cases(["Yes", "no", "YES"]), id="letter case, nothing shown"),
    pytest.param([("1\n", "true\n")], _cases(["false", "true", "false", "true"]), id="true/false"),
    pytest.param([("1\n", "Alice\n"), ("2\n", "Bob\n")], _cases(["Bob", "Alice"]), id="the two answers shown"),
    pytest.param([("1\n", "-1\n"), ("2\n", "4\n")], _cases(["4", "-1", "-1", "4", "4"]), id="two numbers shown"),
]
KEPT_ROWS = [  # held: a guess cannot know the answers, or there are enough cases
    pytest.param([("1\n", "NO\n")], _cases(["YES", "NO", "NO", "YES", "YES", "NO"]), id="six hidden"),
    pytest.param([("1\n", "Alice\n")], _cases(["Bob", "Carol"]), id="answers not shown"),
    pytest.param([("1\n", "2\n")], _cases(["30", "7"]), id="two numbers never shown"),
    pytest.param([("1\n", "YES\n")], _cases(["YES", "NO", "MAYBE"]), id="three answers"),
]


@pytest.mark.parametrize(("public", "private"), GUESSABLE_ROWS)
def test_a_contest_row_a_guess_between_two_answers_passes_is_left_out(public, private):
    import warnings

    import rlvr_envs
    from tests.code.contest_fixtures import codecontests_rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the env says what it left out
        env = rlvr_envs.make("code-contests-v3", data=[_contest_row(public, private), codecontests_rows()[0]])
    assert len(env.tasks) == 1 and "two answers" in env.skipped[0], env.skipped


@pytest.mark.parametrize(("public", "private"), KEPT_ROWS)
def test_a_contest_row_a_guess_cannot_pass_is_kept(public, private):
    import rlvr_envs

    env = rlvr_envs.make("code-contests-v3", data=[_contest_row(public, private)])
    assert len(env.tasks) == 1 and not env.skipped


def test_a_stdio_row_of_your_own_data_a_guess_passes_is_left_out_under_v6_only():
    import warnings

    import rlvr_envs

    inputs = [f"{n}\n" for n in range(3)]
    row = {"prompt": "Is n odd? Print YES or NO.", "inputs": inputs, "outputs": ["NO\n", "YES\n", "NO\n"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        total = {"id": "sum", "prompt": "Print a + b.", "inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]}
        v6 = rlvr_envs.make("code-python-v6", data=[row, total])
        v5 = rlvr_envs.make("code-python-v5", data=[row, total])
    assert [t.id for t in v6.tasks] == ["sum"] and "two answers" in v6.skipped[0]
    assert len(v5.tasks) == 2


def test_a_yes_no_task_nothing_can_be_derived_for_is_left_out_under_v6_only():
    # MBPP/367's shape: the calls take objects the setup builds (no literal to change).
    import warnings

    import rlvr_envs

    setup = "a = [1, 2]\nb = [3]\nc = [2, 2]\n"
    tests = ["assert is_pair(a) == True", "assert is_pair(b) == False", "assert is_pair(c) == True"]
    row = {
        "task_id": 9901,
        "text": f"Is it a pair? Your code should pass: {tests[0]}",
        "code": "def is_pair(x):\n    return len(x) == 2\n",
        "test_list": tests,
        "test_setup_code": setup,
    }
    total = {
        "task_id": 9902,
        "text": "Add. Your code should pass: assert add9(1, 2) == 3",
        "code": "def add9(a, b):\n    return a + b\n",
        "test_list": ["assert add9(1, 2) == 3", "assert add9(2, 5) == 7"],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v6 = rlvr_envs.make("code-mbpp-v6", data=[row, total])
        v5 = rlvr_envs.make("code-mbpp-v5", data=[row, total])
    assert [t.id for t in v6.tasks] == ["mbpp/9902"] and "two answers" in v6.skipped[0], v6.skipped
    assert len(v5.tasks) == 2


# -- the shipped attacker's class ------------------------------------------------------------------
def _mbpp_rows() -> list[dict]:
    rows: list[dict] = []
    for task in GUESSED:
        tests = task.answer["tests"]
        rows.append(
            {
                "task_id": len(rows) + 9950,
                "text": f"{task.prompt}",
                "code": task.answer["canonical_solution"],
                "test_list": tests,
            }
        )
    return rows


@needs_bwrap
@pytest.mark.parametrize(("version", "holes"), [("v5", True), ("v6", False)])
def test_the_shipped_attackers_guess_on_yes_no_tasks(version, holes):
    import warnings

    import rlvr_envs
    from rlvr_envs.redteam import run_redteam

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated id, as it was
        env = rlvr_envs.make(f"code-mbpp-{version}", data=_mbpp_rows())
    report = run_redteam(env, quick=False, n=3, seed=0, classes=["code_guess"])
    result = report.result("code_guess")
    assert report.raised == 0 and len(result.outcomes) == 3 * 4, report.summary_text()
    assert bool(result.holes) is holes, report.summary_text()
