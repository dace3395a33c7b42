"""C, C++ and JavaScript stdio tasks through the code verifier: canonical solutions pass, near
misses score 0, compile errors are ``compile_error``, and the task's ``language`` is enforced."""

from __future__ import annotations

import shutil

import pytest

from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason, Task
from tests.code.languages_cases import COMPILE_ERRORS, PROBLEMS, SOLUTIONS, WRONG, fenced_in

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=20.0, case_timeout_s=5.0)


def task(problem: str, language: object) -> Task:
    return Task(
        id=f"{problem}", prompt=problem, answer={"format": "stdio", "language": language, "cases": PROBLEMS[problem]}
    )


def need(language: str) -> None:
    from rlvr_code.languages import LANGUAGES
    from rlvr_code.languages.runner import toolchain_error

    if toolchain_error(LANGUAGES[language]):
        pytest.skip(f"{language} toolchain missing")


CANONICAL = [(language, problem) for language, solutions in SOLUTIONS.items() for problem in solutions]


@pytest.mark.parametrize(("language", "problem"), CANONICAL)
def test_canonical_solutions_pass(verifier: CodeVerifier, language: str, problem: str) -> None:
    need(language)
    verdict = verifier.verify(task(problem, language), fenced_in(language, SOLUTIONS[language][problem]))
    assert verdict.reward == 1.0, verdict.details
    assert verdict.details["passed"] == len(PROBLEMS[problem]) and verdict.details["language"] == language


WRONG_CASES = [(language, problem, code) for language, items in WRONG.items() for problem, code in items]


@pytest.mark.parametrize(("language", "problem", "code"), WRONG_CASES)
def test_wrong_answers_score_zero(verifier: CodeVerifier, language: str, problem: str, code: str) -> None:
    need(language)
    verdict = verifier.verify(task(problem, language), fenced_in(language, code))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG, verdict.details


@pytest.mark.parametrize("language", sorted(COMPILE_ERRORS))
def test_compile_errors(verifier: CodeVerifier, language: str) -> None:
    need(language)
    verdict = verifier.verify(task("a_plus_b", language), fenced_in(language, COMPILE_ERRORS[language]))
    assert verdict.reward == 0.0 and verdict.reason is Reason.COMPILE_ERROR
    assert verdict.details["compile_error"] and verdict.details["language"] == language


def test_fence_language_must_match(verifier: CodeVerifier) -> None:
    cpp = SOLUTIONS["cpp"]["a_plus_b"]
    # C++ fenced as python, as c, untagged, and no fence at all: all format errors for a cpp task.
    for completion in (f"```python\n{cpp}\n```", f"```c\n{cpp}\n```", f"```\n{cpp}\n```", cpp):
        verdict = verifier.verify(task("a_plus_b", "cpp"), completion)
        assert verdict.reason is Reason.FORMAT_ERROR and verdict.reward == 0.0, completion
    # A Python task given C++ still runs it as Python (the fence's language is not Python's).
    verdict = verifier.verify(task("a_plus_b", "python"), f"```cpp\n{cpp}\n```")
    assert verdict.reward == 0.0
    assert verifier.verify(task("a_plus_b", "cpp"), "").reason is Reason.NO_ANSWER
    assert verifier.verify(task("a_plus_b", "cpp"), "```cpp\n\n```").reason is Reason.NO_ANSWER


def test_language_list_and_aliases(verifier: CodeVerifier) -> None:
    need("cpp")
    accepted = ["python", "c++", "js"]
    python = "a, b = map(int, input().split())\nprint(a + b)\n"
    assert verifier.verify(task("a_plus_b", accepted), f"```python\n{python}```").reward == 1.0
    assert verifier.verify(task("a_plus_b", accepted), f"```c++\n{SOLUTIONS['cpp']['a_plus_b']}\n```").reward == 1.0
    assert (
        verifier.verify(task("a_plus_b", accepted), fenced_in("javascript", SOLUTIONS["javascript"]["a_plus_b"])).reward
        == 1.0
    )
    # The last block in an accepted language is the answer (a draft in another language before it is fine).
    both = f"```c\nint main(){{}}\n```\nbetter:\n```cpp\n{SOLUTIONS['cpp']['a_plus_b']}\n```"
    assert verifier.verify(task("a_plus_b", ["cpp"]), both).reward == 1.0
    # C is not accepted here: format_error, not a run.
    assert (
        verifier.verify(task("a_plus_b", accepted), fenced_in("c", SOLUTIONS["c"]["a_plus_b"])).reason
        is Reason.FORMAT_ERROR
    )


def test_unknown_language_and_non_stdio_are_verifier_errors(verifier: CodeVerifier) -> None:
    assert verifier.verify(task("a_plus_b", "cobol"), "```cobol\nx\n```").reason is Reason.VERIFIER_ERROR
    asserts = Task(id="t", prompt="t", answer={"format": "asserts", "language": "cpp", "tests": ["assert f() == 1"]})
    assert verifier.verify(asserts, "```cpp\nint main(){}\n```").reason is Reason.VERIFIER_ERROR


def test_missing_toolchain_names_the_package(verifier: CodeVerifier, monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from rlvr_code import languages

    monkeypatch.setitem(languages.LANGUAGES, "cpp", replace(languages.LANGUAGES["cpp"], tools=("/nonexistent/g++",)))
    verdict = verifier.verify(task("a_plus_b", "cpp"), fenced_in("cpp", SOLUTIONS["cpp"]["a_plus_b"]))
    assert verdict.reason is Reason.VERIFIER_ERROR and "'g++'" in verdict.details["error"]
    assert "apt-get install g++" in verdict.details["error"]


def test_gold_completion_is_fenced_in_the_task_language() -> None:
    import rlvr_envs

    need("c")
    row = {
        "prompt": "Read two integers and print their sum.",
        "inputs": [c["input"] for c in PROBLEMS["a_plus_b"]],
        "outputs": [c["output"] for c in PROBLEMS["a_plus_b"]],
        "language": "c",
        "canonical_solution": SOLUTIONS["c"]["a_plus_b"],
    }
    env = rlvr_envs.make("code-python-v6", data=[row])
    gold_task = env.tasks[0]
    completion = env.gold_completion(gold_task)
    assert completion is not None and "```c\n" in completion
    assert env.verify(gold_task, completion).reward == 1.0
