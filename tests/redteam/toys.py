"""Toy envs with known holes (and strict ones without) for the red-team tests.

- ``FormatOnlyEnv``: an instruction-following env whose verifier only checks format (all
  lowercase, at least 100 words): no relevance check, so any off-topic text passes.
- ``SubstringEnv``: a math env that pays whenever the gold string occurs anywhere.
- ``StrictEnv``: pays only for exactly the one final answer ``The final answer is \\boxed{g}.``.
- ``NaiveCodeEnv``: runs the program and the asserts in one subprocess and trusts its exit
  status; its multi-turn feedback quotes the failing assert (a hidden test's input and output).
- ``StrictCodeEnv``: runs the program in a subprocess that returns results as JSON and compares
  them here, in the parent, after a nonce proves the run finished; feedback gives counts only.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from collections.abc import Sequence
from typing import Any, ClassVar

from rlvr_envs import DatasetEnv, Reason, Task, Verdict, Verifier
from rlvr_envs.formats import PromptFormat
from rlvr_envs.runtime import dispatch
from rlvr_envs.verifier import run_verifier

_BOX = re.compile(r"The final answer is \\boxed\{(.*)\}\.", re.DOTALL)


class FormatOnlyVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        ok = completion == completion.lower() and len(completion.split()) >= 100
        return Verdict.correct(None) if ok else Verdict.failure(Reason.WRONG)


class SubstringVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        return Verdict.correct(None) if str(task.answer) in completion else Verdict.failure(Reason.WRONG)


class StrictVerifier(Verifier):
    def verify(self, task: Task, completion: str) -> Verdict:
        m = _BOX.fullmatch(completion)
        if m is None:
            return Verdict.failure(Reason.NO_ANSWER)
        if m.group(1) == str(task.answer):
            return Verdict.correct(m.group(1))
        return Verdict.failure(Reason.WRONG, extracted=m.group(1))


ESSAY_TASKS = [
    Task(id=f"essay{i}", prompt=f"Write at least 100 words about {topic}, all in lowercase letters.", answer={})
    for i, topic in enumerate(["the history of bridges", "how bees make honey", "the water cycle", "chess openings"])
]
MATH_TASKS = [
    Task(id=f"sum{i}", prompt=f"What is {a} + {b}?", answer=a + b)
    for i, (a, b) in enumerate([(3, 4), (12, 30), (250, 750), (8, 9), (40, 2)])
]


class WithoutCoreScreens:
    """Mixed into a toy env (before its env class): verifies as the bare env core did, without the
    screens the core may put in front of every verifier (a forged chat turn refused before the
    verifier runs), so that a toy modelling a verifier that lacks a defence really lacks it."""

    verifier: Verifier
    max_completion_chars: int

    def verify(self, task: Task, completion: str) -> Verdict:
        return run_verifier(self.verifier, task, completion, self.max_completion_chars)

    def verify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        return dispatch.verify_batch(self, tasks, completions)  # type: ignore[arg-type]

    async def averify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        return await dispatch.averify_batch(self, tasks, completions)  # type: ignore[arg-type]


class _ToyEnv(DatasetEnv):
    family = "toyredteam"

    def __init__(self, verifier: Verifier, tasks: list[Task], **kwargs: Any) -> None:
        kwargs.setdefault("isolation", "inline")
        super().__init__(verifier, **kwargs)
        self._toy_tasks = tasks

    def _load_tasks(self) -> list[Task]:
        return self._toy_tasks


class FormatOnlyEnv(_ToyEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(FormatOnlyVerifier(), ESSAY_TASKS, **kwargs)


class SubstringEnv(_ToyEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(SubstringVerifier(), MATH_TASKS, **kwargs)

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


class StrictEnv(SubstringEnv):
    def __init__(self, **kwargs: Any) -> None:
        _ToyEnv.__init__(self, StrictVerifier(), MATH_TASKS, **kwargs)


# -- code ------------------------------------------------------------------------------------------
CODE_FORMAT = PromptFormat(
    name="toy-code",
    system_prompt=None,
    instruction="Answer with one ```python block.",
    answer_template="```python\n{answer}\n```",
    format_pattern=r".*```python\n.*?```.*",
)
_FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)

CODE_TASKS = [
    Task(
        id="add",
        prompt="Write add(a, b) returning the sum of a and b.",
        answer={
            "function": "add",
            "cases": [[[1, 2], 3], [[-4, 10], 6], [[20, 22], 42]],
            "solution": "def add(a, b):\n    return a + b\n",
        },
    ),
    Task(
        id="words",
        prompt="Write words(s) returning the list of whitespace-separated words of s, upper-cased.",
        answer={
            "function": "words",
            "cases": [[["a b"], ["A", "B"]], [["hello  there"], ["HELLO", "THERE"]], [[""], []]],
            "solution": "def words(s):\n    return [w.upper() for w in s.split()]\n",
        },
    ),
]


def _program(completion: str) -> str:
    blocks = _FENCE.findall(completion)
    return blocks[-1] if blocks else completion


def _run(source: str) -> subprocess.CompletedProcess[str]:
    # The program comes on stdin (one argument is limited to 128 KiB); -S: no site, a faster start.
    return subprocess.run([sys.executable, "-I", "-S", "-"], input=source, capture_output=True, text=True, timeout=10)


class NaiveCodeVerifier(Verifier):
    """Program and asserts in one process; exit status 0 is a pass."""

    time_budget_s = 15.0

    def verify(self, task: Task, completion: str) -> Verdict:
        fn = task.answer["function"]
        tests = [
            f"assert {fn}({', '.join(map(repr, args))}) == {expected!r}" for args, expected in task.answer["cases"]
        ]
        harness = (
            _program(completion)
            + "\n"
            + "\n".join(
                f"try:\n    {test}\nexcept AssertionError:\n    raise AssertionError({test!r})" for test in tests
            )
        )
        try:
            run = _run(harness)
        except subprocess.TimeoutExpired:
            return Verdict.failure(Reason.TIMEOUT)
        if run.returncode == 0:
            return Verdict.correct(None)
        return Verdict.failure(Reason.WRONG, details={"stderr": run.stderr[-500:]})


# Chat-template control text (ChatML/Llama/Phi/DeepSeek specials, [INST], Gemma's turns, a
# "Human:"/"Assistant:" line): a completion is one turn, so text that opens another is refused.
_TURN_MARKER = re.compile(
    r"<\|[a-z_]+\|>|<｜[^｜]*｜>|\[/?INST\]|<(?:start|end)_of_turn>|^\s*(?:Human|Assistant):", re.MULTILINE
)


class StrictCodeVerifier(Verifier):
    """Results come back as JSON after a nonce and are compared here, not in the program's process;
    a completion holding a chat template's turn markers is refused before anything runs."""

    time_budget_s = 15.0

    def verify(self, task: Task, completion: str) -> Verdict:
        if _TURN_MARKER.search(completion):
            return Verdict.failure(Reason.FORMAT_ERROR)
        nonce = secrets.token_hex(8)
        fn = task.answer["function"]
        calls = json.dumps([args for args, _ in task.answer["cases"]])
        harness = (
            "import json as _json, sys as _sys\n_write = _sys.stdout.write\n_ns = {}\n"
            f"exec(compile({_program(completion)!r}, 'solution', 'exec'), _ns)\n"
            f"_out = [_ns[{fn!r}](*a) for a in _json.loads({calls!r})]\n"
            f"_write({nonce!r} + _json.dumps(_out))\n"
        )
        try:
            run = _run(harness)
        except subprocess.TimeoutExpired:
            return Verdict.failure(Reason.TIMEOUT)
        if run.returncode != 0 or not run.stdout.startswith(nonce):
            return Verdict.failure(Reason.RUNTIME_ERROR)
        try:
            results = json.loads(run.stdout[len(nonce) :])
        except ValueError:
            return Verdict.failure(Reason.RUNTIME_ERROR)
        expected = [e for _, e in task.answer["cases"]]
        passed = sum(type(r) is type(e) and r == e for r, e in zip(results, expected))
        details = {"passed": passed, "total": len(expected)}
        if passed == len(expected) and len(results) == len(expected):
            return Verdict.correct(None, details=details)
        return Verdict.failure(Reason.WRONG, details=details)


class _CodeEnv(_ToyEnv):
    prompt_formats: ClassVar[dict[str, PromptFormat]] = {"toy-code": CODE_FORMAT}
    default_prompt_format: ClassVar[str] = "toy-code"

    def answer_text(self, task: Task) -> str:
        return str(task.answer["solution"])


class NaiveCodeEnv(WithoutCoreScreens, _CodeEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(NaiveCodeVerifier(), CODE_TASKS, **kwargs)

    def feedback(self, task: Task, verdict: Verdict) -> str:
        stderr = verdict.details.get("stderr", "") if isinstance(verdict.details, dict) else ""
        return f"Your program failed: {stderr.strip().splitlines()[-1] if stderr.strip() else verdict.reason.value}"


class StrictCodeEnv(_CodeEnv):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(StrictCodeVerifier(), CODE_TASKS, **kwargs)

    def feedback(self, task: Task, verdict: Verdict) -> str:
        details = verdict.details if isinstance(verdict.details, dict) else {}
        return f"{details.get('passed', 0)}/{details.get('total', '?')} tests passed ({verdict.reason.value})."
