"""Red team round 15, a hidden value quoted through a public test's own message.

The multi-turn feedback quoted a failing public test's error in full. Its message is the task's
text: an assert whose message is a table of every answer (``assert f(1) == WANT[1], WANT``), a
check raising ``AssertionError(expected)`` or ``ValueError`` with a hidden table, a JSON dump or a
diff of the expected values: each put hidden expected values in the observation, which a
lookup-table program then answers (``test_code_feedback``'s attack). A public failure of a test in
the task's own code is now named by its kind only (``feedback.public_lines``); a stdin/stdout
case's harness words and ``run_tests``' own "got:" message (a nonce the task cannot hold) are still
quoted. Every ``asserts`` row of ``LEAKS`` put its hidden value in the feedback before (8 of 8
failed, as did the ``run_tests`` test); the HumanEval rows held already (its judge reports an
assert's condition alone) and stay as a guard.
"""

from __future__ import annotations

import pytest

from rlvr_code.envs import CodeEnv
from rlvr_envs.types import Task
from tests.code.helpers_code import fenced
from tests.helpers.sandbox import needs_bwrap

PROMPT = "Write f(x) returning x*x+1.\n>>> f(1)\n2\n"
HIDDEN = "10001"  # f(100): only the hidden test and the task's own tables hold it
WANT = "WANT = {1: 2, 100: 10001}"
HE_TABLE = "    table = {1: 2, 100: 10001}\n"


def _asserts(first: str, setup: str = WANT) -> dict:
    return {
        "format": "asserts",
        "setup": setup,
        "tests": [first, "assert f(100) == WANT[100]"],
        "solution_names": ["f"],
        "public_tests": [0],
    }


def _humaneval(first: str) -> dict:
    check = f"def check(candidate):\n{HE_TABLE}    {first}\n    assert candidate(100) == table[100]\n"
    return {
        "format": "humaneval",
        "context": "def f(x):\n    pass\n",
        "entry_point": "f",
        "test": check,
        "public_tests": [0],
    }


# A public test whose own failure message carries the hidden expected value, in several forms.
LEAKS = {
    "asserts, message a table": _asserts("assert f(1) == WANT[1], WANT"),
    "asserts, message the repr": _asserts("assert f(1) == WANT[1], repr(sorted(WANT.items()))"),
    "asserts, raise AssertionError(expected)": _asserts("if f(1) != WANT[1]:\n    raise AssertionError(WANT[100])"),
    "asserts, raise ValueError(table)": _asserts("if f(1) != WANT[1]:\n    raise ValueError(str(WANT))"),
    "asserts, a JSON dump": _asserts("import json\nassert f(1) == WANT[1], json.dumps(WANT)", setup=WANT),
    "asserts, a diff line": _asserts("assert f(1) == WANT[1], f'- {f(1)}\\n+ {WANT[1]}\\n(+ {WANT[100]})'"),
    "asserts, a partial prefix": _asserts("assert f(1) == WANT[1], str(WANT[100])[:3] + '...'"),
    "asserts, a KeyError from the table": _asserts(
        "assert {v: k for k, v in WANT.items()}.get(f(1)) == 1 or {}[str(WANT)]"
    ),
    "humaneval, message the table": _humaneval("assert candidate(1) == table[1], table"),
    "humaneval, raise AssertionError(table)": _humaneval(
        "assert candidate(1) == 2 or (_ for _ in ()).throw(AssertionError(table))"
    ),
}


def _feedback(answer: dict, program: str) -> str:
    env = CodeEnv(data=[{"id": "t", "prompt": PROMPT, "answer": answer}], max_turns=2, timeout_s=10)
    env.reset(options={"task_id": "t"})
    obs, reward, *_ = env.step(fenced(program))
    assert reward == 0.0
    return obs


@needs_bwrap
@pytest.mark.parametrize("name", list(LEAKS))
def test_a_public_test_s_own_message_never_carries_a_hidden_value(name: str) -> None:
    obs = _feedback(LEAKS[name], "def f(x):\n    return 0")
    # the failure's words after its source: before, the task's message with 10001 (or "100...")
    error = obs.split("\nHidden tests")[0].rsplit(": ", 1)[1]
    assert HIDDEN not in obs and not any(c.isdigit() for c in error), obs
    assert "Examples from the task: 0/1 passed." in obs  # the public failure is still named
    assert "Hidden tests: 0/1 passed" in obs


@needs_bwrap
def test_a_stdio_public_case_is_still_quoted_in_full() -> None:
    cases = [{"input": "1\n", "output": "2\n"}, {"input": "100\n", "output": "10001\n"}]
    obs = _feedback({"format": "stdio", "cases": cases, "public_tests": [0]}, "print(0)")
    assert "expected '2', got '0'" in obs and HIDDEN not in obs


@needs_bwrap
def test_run_tests_quotes_its_own_got_and_no_message_of_the_task() -> None:
    from rlvr_code.split import split_tests
    from rlvr_code.tools.run_tests_tool import GOT, report, run_public
    from rlvr_code.verifier import CodeVerifier

    verifier = CodeVerifier(timeout_s=10)
    program = fenced("def f(x):\n    return 0")
    for first, want in (
        ("assert f(1) == WANT[1]", "AssertionError: got: 0"),  # the tool's own message
        ("assert f(1) == WANT[1], 'got: ' + str(WANT)", "wrong answer"),  # the task's, forging it
    ):
        task = Task(id="r", prompt=PROMPT, answer=_asserts(first))
        public = run_public(verifier, task, program, split_tests(task)[0])
        text = report(task, verifier.verify(task, program), public, "def f(x):\n    return 0\n")
        assert f"{first}: {want}" in text and HIDDEN not in text and GOT not in text, text
