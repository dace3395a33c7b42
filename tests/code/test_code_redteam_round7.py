"""Red team round 7 on the code family: a policy that wants reward (or a ``verifier_error`` it can
choose over its 0) without a right program. Each table is one class; every row failed before its
fix unless it says otherwise.

* **An interactor crashed by silence or an early end**: an interactor reading
  ``op, x = sys.stdin.readline().split()`` raises on the end of the contestant's output. A program
  printing nothing, or exiting mid-game, made every case a ``verifier_error`` (a program could
  choose it over its 0; enough of them stop a run under the adapters' failure policy).
* **testlib's other rejections**: exit 4 (``_dirt``, extra output) and 8 (``_unexpected_eof``) read
  as the judge's failure.
* **Letters and gaps a judge does not read**: ``case_sensitive: false`` folded with ``casefold``
  (``yeſ`` == ``YES``), and the token checkers split at Unicode spaces (U+00A0, U+3000, U+2028, ...).
* **Hidden content in the feedback** (issue 26's leftover): an exception whose argument is a hidden
  input, an assertion message quoting it, a class named after it, a checker's or an interactor's
  message quoting the expected output: the feedback names a kind from a fixed vocabulary only
  (this class held already; the rows keep it held on the contest paths too).
* **Deriving hidden tests without the local sandbox** (the Docker backend's host): refused with a
  clear reason at ``make`` and at ``verify``.
"""

from __future__ import annotations

import pytest

from rlvr_code.contests.checkers import parse_checker
from rlvr_code.scoring import error_type
from rlvr_envs import python_ast
from rlvr_envs.types import Task
from tests.code.contest_interactive_cases import BROKEN_INTERACTOR as BROKEN
from tests.code.contest_interactive_cases import RIGHT, guess_task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap

# -- an interactor crashed by silence or an early end ---------------------------------------------
GUESS = """import sys
n = int(open(sys.argv[1]).read().split()[0])
for _ in range(25):
{read}
    x = int(x)
    if op == "!":
        sys.exit(0 if x == n else 1)
    print("<" if n < x else ">" if n > x else "=", flush=True)
sys.exit(1)
"""
SILENCE_CRASHERS = {
    # each raises on the end of its stdin rather than rejecting it
    "readline split": GUESS.format(read="    op, x = sys.stdin.readline().split()"),
    "buffer readline": GUESS.format(read="    op, x = sys.stdin.buffer.readline().decode().split()"),
    "readline index": GUESS.format(read="    w = sys.stdin.readline().split()\n    op, x = w[0], w[1]"),
    "iterator next": GUESS.format(read="    op, x = next(iter(sys.stdin.readline, '')).split()"),
}
TESTLIB_EOF = GUESS.format(
    read=(
        "    line = sys.stdin.readline()\n"
        "    if not line:\n"
        "        sys.exit(8)  # testlib's _unexpected_eof\n"
        "    w = line.split()\n"
        "    if len(w) != 2:\n"
        "        sys.exit(4)  # testlib's _dirt\n"
        "    op, x = w"
    )
)
MISBEHAVING = [
    pytest.param("pass", id="silent"),
    pytest.param("import sys\nsys.exit(0)", id="exits at once"),
    pytest.param("print('? 3', flush=True)", id="one query then exits"),
    pytest.param("import os, time\nos.close(1)\ntime.sleep(0.3)", id="closes its stdout"),
    pytest.param("print('? 500', flush=True)\ninput()\nimport os\nos._exit(0)", id="os._exit mid-game"),
    pytest.param("import sys\nsys.stdout.write('? 1')\nsys.stdout.flush()", id="no newline then exits"),
    pytest.param("print('hello world', flush=True)", id="garbage"),
    pytest.param("print('? 1 2 3', flush=True)", id="extra token"),
]


def _guess_task(interactor: str, reference: str | None = None) -> Task:
    return guess_task(interactor, reference, task_id="guess-r7")


def _verifier():
    from rlvr_code.contests.verifier import ContestVerifier

    return ContestVerifier(timeout_s=20.0, case_timeout_s=2.0)


@needs_bwrap
@pytest.mark.parametrize(
    "interactor", [*SILENCE_CRASHERS.values(), TESTLIB_EOF], ids=[*SILENCE_CRASHERS, "testlib 4/8"]
)
@pytest.mark.parametrize("program", MISBEHAVING)
def test_a_program_that_ends_its_output_early_is_wrong_never_a_verifier_error(interactor, program):
    verdict = _verifier().verify(_guess_task(interactor), fenced(program))
    assert (verdict.reward, verdict.reason.value) == (0.0, "wrong"), verdict.details


@needs_bwrap
@pytest.mark.parametrize(
    "interactor", [*SILENCE_CRASHERS.values(), TESTLIB_EOF], ids=[*SILENCE_CRASHERS, "testlib 4/8"]
)
def test_the_right_program_scores_1_under_an_interactor_that_crashes_on_silence(interactor):
    assert _verifier().verify(_guess_task(interactor), fenced(RIGHT["python"])).reward == 1.0
    with_reference = _guess_task(interactor, reference=RIGHT["python"])
    assert _verifier().verify(with_reference, fenced("pass")).reason.value == "wrong"


@needs_bwrap
@pytest.mark.parametrize("program", [RIGHT["python"], "pass", "print('hello world', flush=True)"])
def test_an_interactor_failing_before_it_reads_stays_the_interactors_failure(program):
    # The author's bug, whatever the program: never a reward, never the program's wrong answer.
    verdict = _verifier().verify(_guess_task(BROKEN), fenced(program))
    assert (verdict.reward, verdict.reason.value) == (0.0, "verifier_error"), verdict.details


# -- a special judge's testlib rejections ------------------------------------------------------------
DIRT_CHECKER = """import sys
got = open(sys.argv[2]).read().split()
want = open(sys.argv[3]).read().split()
if len(got) < len(want):
    sys.exit(8)
if len(got) > len(want):
    sys.exit(4)
sys.exit(0 if got == want else 1)
"""


@needs_bwrap
@pytest.mark.parametrize(
    "program, reward",
    [("print(sum(map(int, input().split())))", 1.0), ("print(1, 2)", 0.0), ("pass", 0.0), ("print(7)", 0.0)],
    ids=["right", "extra token (4)", "nothing (8)", "wrong (1)"],
)
def test_testlib_exit_4_and_8_reject_the_output(program, reward):
    from rlvr_code.contests.sandboxed import REJECT

    assert {4, 8} <= set(REJECT)
    task = Task(
        id="ab-r7",
        prompt="a+b",
        answer={
            "format": "stdio",
            "cases": [{"input": "1 2\n", "output": "3\n"}, {"input": "20 22\n", "output": "42\n"}],
            "checker": {"type": "program", "source": DIRT_CHECKER},
        },
    )
    verdict = _verifier().verify(task, fenced(program))
    assert verdict.reward == reward and verdict.reason.value in ("ok", "wrong"), verdict.details


# -- letters and gaps a judge does not read --------------------------------------------------------------
NOT_ASCII = [
    pytest.param("yeſ", "YES", id="long s casefolds to s"),
    pytest.param("\u212a", "k", id="Kelvin sign casefolds to k"),
    pytest.param("straße", "STRASSE", id="sharp s casefolds to ss"),
    pytest.param("ﬁne", "FINE", id="fi ligature"),
]
GAPS = ["\u00a0", "\u3000", "\u2028", "\u2029", "\u0085", "\u001c", "\u001f", "\u1680", "\u2003"]


@pytest.mark.parametrize("got, want", NOT_ASCII)
def test_case_insensitive_tokens_fold_ascii_letters_only(got, want):
    for kind in ("tokens", "float"):
        checker = parse_checker({"type": kind, "case_sensitive": False})
        assert checker is not None
        assert checker.compare(got, want)[0] is False, (kind, got, want)
        assert checker.compare(want.lower(), want)[0] is True  # the honest answer in another case


@pytest.mark.parametrize("gap", GAPS, ids=[f"U+{ord(g):04X}" for g in GAPS])
def test_tokens_are_split_at_ascii_whitespace_only(gap):
    for spec in ("tokens", "float", {"type": "tokens", "case_sensitive": False}):
        checker = parse_checker(spec)
        assert checker is not None
        assert checker.compare(f"1{gap}2", "1 2")[0] is False, (spec, gap)
        assert checker.compare(f"3{gap}", "3")[0] is False, (spec, gap)
        assert checker.compare("1 \t 2\r\n\n", "1 2\n")[0] is True  # ASCII gaps of any kind and length


@pytest.mark.parametrize("got, want", [("1\u20282", "1\n2"), ("3\u3000", "3"), ("1\x0c2", "1\n2"), ("1\x852", "1\n2")])
def test_the_line_comparison_reads_ascii_line_ends_and_spaces_only(got, want):
    from rlvr_code._sandbox_stdio import normalise_output

    assert normalise_output(got) != normalise_output(want)


# -- hidden content in the feedback ----------------------------------------------------------------------
SECRET_IN, SECRET_OUT = "zq_secret_key_9137", "zq_expected_7731"
LEAKERS = [
    pytest.param("def f(d, k):\n    raise KeyError(k)", id="KeyError(hidden key)"),
    pytest.param("def f(d, k):\n    assert False, repr((d, k))", id="AssertionError quoting the input"),
    pytest.param("def f(d, k):\n    raise type(k, (ValueError,), {})(k)", id="exception class named after the input"),
    pytest.param("def f(d, k):\n    print(d, k)\n    return k", id="returns and prints the input"),
    pytest.param("import sys\ndef f(d, k):\n    raise SystemExit(repr((d, k)))", id="SystemExit carrying the input"),
]


def _feedback(verifier, task: Task, program: str) -> str:
    from rlvr_code.feedback import attempt_feedback
    from rlvr_code.split import split_tests

    completion = fenced(program)
    verdict = verifier.verify(task, completion)
    public = verifier.run_public(task, completion) if split_tests(task)[0] else None
    return attempt_feedback(verdict, public, program)


@needs_bwrap
@pytest.mark.parametrize("program", LEAKERS)
def test_a_hidden_asserts_exception_argument_never_reaches_the_feedback(program):
    from rlvr_code.verifier import CodeVerifier

    task = Task(
        id="lookup-r7",
        prompt="Write f(d, k) returning d[k], or 0. Your code should pass: assert f({'a': 1}, 'a') == 1",
        answer={
            "format": "asserts",
            "tests": [
                "assert f({'a': 1}, 'a') == 1",
                f"assert f({{'{SECRET_IN}': 5}}, '{SECRET_IN}') == '{SECRET_OUT}'",
            ],
            "solution_names": ["f"],
            "public_tests": [0],
        },
    )
    text = _feedback(CodeVerifier(timeout_s=10.0), task, program)
    assert SECRET_IN not in text and SECRET_OUT not in text and "zq_" not in text, text
    assert "Hidden tests: 0/1 passed" in text, text


STDIO_LEAKERS = [
    pytest.param("import sys\ns = sys.stdin.read()\nraise ValueError(s)", id="ValueError(stdin)"),
    pytest.param("import sys\ns = sys.stdin.read()\nprint(s, file=sys.stderr)\nprint(s)", id="echo"),
    pytest.param("import sys\ns = sys.stdin.read()\nraise KeyError(s)", id="KeyError(stdin)"),
    pytest.param("print('wrong')", id="wrong answer (checker quotes the expected)"),
]


@needs_bwrap
@pytest.mark.parametrize("program", STDIO_LEAKERS)
@pytest.mark.parametrize(
    "checker",
    [None, "tokens", {"type": "program", "source": DIRT_CHECKER}],
    ids=["line comparison", "tokens", "special judge"],
)
def test_a_hidden_cases_input_and_output_never_reach_the_contest_feedback(program, checker):
    answer = {
        "format": "stdio",
        "cases": [{"input": "hello\n", "output": "HELLO\n"}, {"input": f"{SECRET_IN}\n", "output": f"{SECRET_OUT}\n"}],
        "public_tests": [0],
    }
    if checker is not None:
        answer["checker"] = checker
    task = Task(id="upper-r7", prompt="Print the line in capitals.\nInput\nhello\nOutput\nHELLO\n", answer=answer)
    text = _feedback(_verifier(), task, program)
    assert "zq_" not in text, text
    assert "Hidden tests: 0/1 passed; the first failure: " in text, text


@pytest.mark.parametrize(
    "error",
    [
        "checker: wrong answer 5 expected 6",
        "rejected by the checker",
        "interactor: bad guess",
        "rejected by the interactor",
    ],
)
def test_a_judges_rejection_is_named_a_wrong_answer(error):
    # Before: ``runtime error`` (the head of the message is no builtin exception's name).
    assert error_type({"status": "failed", "error": error}) == "wrong answer"
    assert error_type({"status": "error", "error": "exit status 1: " + SECRET_IN}) == "runtime error"
    assert error_type({"status": "error", "error": f"KeyError: '{SECRET_IN}'"}) == "KeyError"


# -- deriving hidden tests without the local sandbox (the Docker backend's host) ------------------------
def test_a_host_without_bubblewrap_refuses_tasks_needing_derived_tests_clearly(monkeypatch):
    import rlvr_code.languages.runner as runner
    import rlvr_code.sandbox as sandbox
    import rlvr_envs
    from rlvr_code.derived import NO_LOCAL_SANDBOX
    from rlvr_code.verifier import CodeVerifier

    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(runner, "bwrap_path", lambda: None)
    shown = "assert add_r7(1, 2) == 3"
    row = {
        "task_id": 990_007,
        "text": f"Add two numbers. Your code should pass these tests:\n{shown}",
        "code": "def add_r7(a, b):\n    return a + b\n",
        "test_list": [shown],
    }
    with pytest.warns(UserWarning, match="left out"):
        env = rlvr_envs.make(
            "code-python-v5", data=[row, {**row, "task_id": 990_008, "test_list": [shown, "assert add_r7(5, 5) == 10"]}]
        )
    assert len(env.tasks) == 1 and any(NO_LOCAL_SANDBOX in why for why in env.skipped), env.skipped
    task = Task(
        id="add-r7-docker",
        prompt=f"Add. Your code should pass: {shown}",
        answer={"format": "asserts", "tests": [shown], "canonical_solution": row["code"], "solution_names": ["add_r7"]},
    )
    verdict = CodeVerifier(timeout_s=5.0).verify(task, fenced("def add_r7(a, b):\n    return 3"))
    assert (verdict.reward, verdict.reason.value) == (0.0, "verifier_error")
    assert "hidden_tests='as_given'" in verdict.details["error"], verdict.details


# -- the prompt's example from a table, one value otherwise ------------------------------------------------
# MBPP/3 (``is_not_prime``) shows ``assert is_not_prime(2) == False``; its two hidden asserts both
# expect True: ``return n != 2`` scored 1 all-or-nothing on -v3. Over MBPP and HumanEval, 84 tasks
# have hidden tests one value passes; a table of the shown example and that value otherwise scored
# 1 on 81 of them under -v3, 15 under -v4 (``hidden_tests="discriminate"``: tests derived from the
# reference, each answered otherwise; the 15 are functions whose answer near the shown inputs is
# almost always that value: Woodall and Armstrong numbers, ...). Guessing the value among ten
# common ones (``CONSTANTS``): 60 of 83 under -v3, 14 under -v4.
RESIDUAL = 15
CONSTANTS = ["True", "False", "0", "1", "2", "''", "[]", "'Not matched!'", "'No'", "'Yes'"]


def _lookup_then_constant(task: Task, const: str) -> str:
    import ast

    from rlvr_code.split import split_tests

    answer = task.answer
    name = answer.get("entry_point") or (answer.get("solution_names") or ["f"])[0]
    table = {}
    for test in split_tests(task)[0]:
        node = python_ast.parse_module(test.source.strip().replace("candidate(", f"{name}(")).body[0]
        shown = getattr(node, "test", None)
        if isinstance(shown, ast.Compare) and isinstance(shown.left, ast.Call):
            try:
                table[repr(tuple(ast.literal_eval(a) for a in shown.left.args))] = ast.literal_eval(
                    shown.comparators[0]
                )
            except ValueError:
                continue
    return fenced(f"_T = {table!r}\ndef {name}(*a):\n    return _T[repr(a)] if repr(a) in _T else {const}\n")


def _best_lookup(env, task: Task) -> float:
    return max(env.verifier.verify(task, _lookup_then_constant(task, c)).reward for c in CONSTANTS)


@pytest.mark.parametrize(
    "source, body, expected",
    [
        ("assert f(1) == True", "", (True, True)),
        ("assert f('a', 2) == 'Not matched!'", "", (True, "Not matched!")),
        ("assert not f(3)", "", (True, False)),
        ("assert f(3)", "", (True, True)),
        ("assert f(3) is None", "", (True, None)),
        ("assert [1, 2] == f(3)", "", (True, [1, 2])),
        ("assert abs(f(3) - 0.5) < 1e-6", "", (False, None)),
        ("assert f(3) == g(4)", "", (False, None)),
    ],
)
def test_the_value_an_assert_expects_whatever_the_input(source, body, expected):
    from rlvr_code.derived import expected_value

    assert expected_value(source) == expected


def test_a_task_whose_hidden_tests_one_value_passes_is_found():
    from rlvr_code.derived import constant_passable, needs_derived

    def task(tests: list[str]) -> Task:
        return Task(
            id="c-r7",
            prompt=f"Write is_np(n). Your code should pass: {tests[0]}",
            answer={"format": "asserts", "tests": tests, "solution_names": ["is_np"], "public_tests": [0]},
        )

    one = task(["assert is_np(2) == False", "assert is_np(10) == True", "assert is_np(35) == 1"])
    mixed = task(["assert is_np(2) == False", "assert is_np(10) == True", "assert is_np(7) == False"])
    assert constant_passable(one) and needs_derived(one, "discriminate") and not needs_derived(one, "derive")
    assert not constant_passable(mixed) and not needs_derived(mixed, "discriminate")


@needs_bwrap
@pytest.mark.parametrize("task_id", ["mbpp/3", "mbpp/16", "mbpp/19", "HumanEval/40"])
def test_the_shown_example_from_a_table_and_one_value_otherwise_scores_zero(task_id):
    import warnings

    import rlvr_envs
    from tests.helpers.data import shared_path

    source, name = (
        ("humaneval.jsonl", "code-humaneval") if task_id.startswith("HumanEval") else ("mbpp.jsonl", "code-mbpp")
    )
    path = str(shared_path(source))
    env = rlvr_envs.make(f"{name}-v5", data=path)
    task = next(t for t in env.tasks if t.id == task_id)
    assert env.verifier.verify(task, env.gold_completion(task)).reward == 1.0
    assert _best_lookup(env, task) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated id, as it was
        old = rlvr_envs.make(f"{name}-v3", data=path)
    assert _best_lookup(old, next(t for t in old.tasks if t.id == task_id)) == 1.0


@needs_bwrap
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_one_value_otherwise_over_every_shipped_task_whose_hidden_tests_it_passes():
    # The strongest attacker of the class: the value the hidden tests expect (a policy guesses it).
    import rlvr_envs
    from rlvr_code.derived import _one_value, constant_passable
    from rlvr_code.scoring import plan_for
    from tests.helpers.data import shared_path

    found, won = 0, []
    for name, source in (("code-mbpp-v5", "mbpp.jsonl"), ("code-humaneval-v5", "humaneval.jsonl")):
        env = rlvr_envs.make(name, data=str(shared_path(source)))
        for task in env.tasks:
            if not constant_passable(task):
                continue
            found += 1
            value = _one_value([t.source for t in plan_for(task).tests if not t.public])[1]
            assert env.verifier.verify(task, env.gold_completion(task)).reward == 1.0, task.id
            if env.verifier.verify(task, _lookup_then_constant(task, repr(value))).reward > 0.0:
                won.append(task.id)
    assert found == 84
    assert len(won) <= RESIDUAL, won
