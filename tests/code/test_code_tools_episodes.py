"""The code family's tools in episodes (issue 28): ``python`` on every math id (tool-integrated
reasoning) and ``python`` + ``run_tests`` on the code ids, end to end with scripted turns; the
lookup-table attack through ``run_tests`` scores 0, and no tool output quotes a hidden test."""

from __future__ import annotations

import importlib
import json
import re
import shutil
from typing import Any

import pytest

import rlvr_envs
from rlvr_code.envs import CodeEnv
from rlvr_code.split import split_tests
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.episodes import EpisodeEnv, get_tool
from rlvr_envs.episodes.testing import check_episode_env, check_tool
from rlvr_envs.types import Task
from tests.code.test_code_feedback import (
    _calls_with_answers,
    _env_for,
    assert_no_hidden_literal,
    attack_sample,
    lookup_table_program,
)
from tests.code.test_code_tools import assert_nothing_left

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

MATH_IDS = ["math-arith", "math", "math-500", "math-aime", "math-gsm8k"]
CODE_IDS = ["code-python", "code-humaneval", "code-mbpp"]
PRODUCT = Task(id="mul", prompt="What is 123456 * 654321?", answer=str(123456 * 654321))


def call(name: str, **arguments: str) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def family_env(env_id: str, directory: str) -> rlvr_envs.Env:
    hook = importlib.import_module(f"tests.{directory}.conformance")
    env = hook.make_env(env_id)
    return env if env is not None else rlvr_envs.make(env_id)


@pytest.mark.parametrize("env_id", MATH_IDS)
def test_python_on_every_math_id(env_id):
    with EpisodeEnv(family_env(env_id, "math"), tools=["python"], max_turns=4) as env:
        _, info = env.reset(options={"task": PRODUCT})
        assert [t["function"]["name"] for t in info["tools"]] == ["python"]
        _, reward, terminated, _, info = env.step(call("python", code="big = 123456 * 654321\nbig"))
        assert (reward, terminated, info["tool_messages"][0]["content"]) == (0.0, False, "80779853376\n")
        _, reward, terminated, _, info = env.step("The product is \\boxed{80779853376}.")
        assert (reward, terminated) == (1.0, True), info["verdict"]
        env.reset(options={"task": PRODUCT})
        _, _, _, _, info = env.step(call("python", code="big"))  # a new episode: a new session
        assert "NameError" in info["tool_messages"][0]["content"]
        _, reward, terminated, _, _ = env.step("The product is \\boxed{80779853375}.")
        assert (reward, terminated) == (0.0, True)
    assert_nothing_left()  # the episode's end closed its session


@pytest.mark.parametrize("env_id", CODE_IDS)
def test_python_and_run_tests_on_every_code_id(env_id):
    inner = family_env(env_id, "code")
    with EpisodeEnv(inner, tools=["python", "run_tests"], max_turns=5, tool_timeout_s=30) as env:
        _, info = env.reset(seed=0)
        assert sorted(t["function"]["name"] for t in info["tools"]) == ["python", "run_tests"]
        task = env.current_task
        gold = inner.gold_completion(task)
        wrong = "```python\nimport sys\nsys.exit(0)\n```"
        _, _, _, _, info = env.step(call("python", code="sum(range(10))"))
        assert info["tool_messages"][0]["content"] == "45\n"
        _, _, terminated, _, info = env.step(call("run_tests", program=wrong))
        assert not terminated
        assert info["tool_messages"][0]["content"] == "Your program did not run: it failed while loading (SystemExit)"
        _, _, _, _, info = env.step(call("run_tests", program=gold))
        assert re.fullmatch(r"All \d+ tests passed\.", info["tool_messages"][0]["content"]), info["tool_messages"]
        _, reward, terminated, _, info = env.step(gold)
        assert (reward, terminated) == (1.0, True), info.get("verdict")
        env.reset(options={"task": task})
        _, reward, terminated, _, _ = env.step(wrong)
        assert (reward, terminated) == (0.0, True)


def test_both_tools_pass_the_tool_kit_and_a_code_env_the_episode_kit():
    for name in ("python", "run_tests"):
        check_tool(get_tool(name))
    env = EpisodeEnv(family_env("code-python", "code"), tools=["python", "run_tests"], max_turns=4, tool_timeout_s=30)
    check_episode_env(env, n_tasks=2)
    env.close()
    assert_nothing_left()


def run_tests_attack(env: EpisodeEnv, task: Task, turns: int = 4) -> tuple[float, list[str]]:
    """Mine the prompt and each run_tests report for calls and answers, hardcode them, then answer."""
    shown = re.search(r"assert (\w+)\(", task.prompt)
    name = task.answer.get("entry_point") or (shown.group(1) if shown else "f")
    env.reset(options={"task": task})
    table = _calls_with_answers(task.prompt, name)
    reports = []
    for _ in range(turns - 1):
        _, _, _, _, info = env.step(call("run_tests", program=lookup_table_program(name, table)))
        report = info["tool_messages"][0]["content"]
        reports.append(report)
        table.update(_calls_with_answers(report, name))
    _, reward, _, _, _ = env.step(lookup_table_program(name, table))
    return reward, reports


def test_run_tests_shows_public_tests_in_full_with_the_value_returned():
    mbpp, humaneval = attack_sample()[0], attack_sample()[-1]  # remove_Occ, triangle_area
    env = EpisodeEnv(_env_for(CodeEnv, [mbpp, humaneval]), tools=["run_tests"], max_turns=3, tool_timeout_s=30)
    program = "```python\ndef remove_Occ(s, c):\n    return s[::-1]\ndef triangle_area(a, h):\n    return [a, h]\n```"
    for task, line in (
        (mbpp, 'assert remove_Occ("hello","l") == "heo": AssertionError: got: \'olleh\''),
        (humaneval, "assert candidate(5, 3) == 7.5: AssertionError: got: [5, 3]"),
    ):
        env.reset(options={"task": task})
        _, _, _, _, info = env.step(call("run_tests", program=program))
        lines = info["tool_messages"][0]["content"].splitlines()
        assert lines == ["Examples from the task: 0/1 passed.", f"  {line}", lines[2]]
        assert re.fullmatch(r"Hidden tests: 0/\d+ passed; the first failure: wrong answer\.", lines[2])
    env.close()


@pytest.mark.timeout(1200)
def test_the_lookup_table_attack_through_run_tests_scores_zero_and_quotes_no_hidden_test():
    tasks = attack_sample()[::3]  # MBPP and HumanEval tasks with straight-line tests
    env = EpisodeEnv(_env_for(CodeEnv, tasks), tools=["run_tests"], max_turns=4, tool_timeout_s=30)
    for task in tasks:
        reward, reports = run_tests_attack(env, task)
        assert reward == 0.0, task.id
        assert any(split_tests(task)[1]) and all("Hidden tests:" in r for r in reports), reports
        for report in reports:
            assert_no_hidden_literal(task, report)
    env.close()


class LeakyRunTests:
    """run_tests as it must not be: the graded run's first failure, quoted in full."""

    name = "run_tests"
    description = "Run the tests."
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {"program": {"type": "string"}},
        "required": ["program"],
    }

    def open(self, context):
        verifier = CodeVerifier(timeout_s=10)

        class Session:
            def call(self, program: str) -> str:
                return str(verifier.verify(context.task, program).details.get("first_error"))

            def close(self) -> None:
                pass

        return Session()


@pytest.mark.timeout(1200)
def test_the_attack_does_win_against_a_leaky_run_tests():
    tasks = attack_sample()[:20:3]
    env = EpisodeEnv(_env_for(CodeEnv, tasks), tools=[LeakyRunTests()], max_turns=4, tool_timeout_s=30)
    won = sum(run_tests_attack(env, task)[0] == 1.0 for task in tasks)
    env.close()
    assert won >= len(tasks) // 2, won  # the attack is real: only the split stops it


def _reports_without_hidden_literals(tasks: list[Task], source: str) -> None:
    """A program that records every input it is given and prints, raises or returns all of them
    (a failing public assert then shows what it returned), and one that reads the calls sent
    ahead from its socket at import: no run_tests report quotes a hidden test's literal."""
    from concurrent.futures import ThreadPoolExecutor

    from rlvr_envs.episodes import ToolContext, ToolError
    from tests.code.test_code_feedback import SOCKET_READER

    def reports(task: Task) -> list[str]:
        names = [task.answer["entry_point"]] if source == "humaneval" else task.answer["solution_names"]
        recorders = [
            "_SEEN = []\n"
            + "".join(
                f"def {n}(*args, **kwargs):\n    _SEEN.append((args, kwargs))\n    print(_SEEN)\n    {tail}\n"
                for n in names
            )
            for tail in ("raise ValueError(repr(_SEEN))", "return repr(_SEEN)")
        ]
        context = ToolContext(task=task, env_id=f"code-{source}", call_timeout_s=60, max_output_chars=4000)
        session = get_tool("run_tests").open(context)
        out = []
        for program in (*recorders, SOCKET_READER):
            try:
                out.append(session.call(program=f"```python\n{program}\n```"))
            except ToolError as exc:
                out.append(str(exc))
        return out

    with ThreadPoolExecutor(2) as pool:
        for task, texts in zip(tasks, pool.map(reports, tasks)):
            for text in texts:
                assert_no_hidden_literal(task, text)


def _source_tasks(source: str) -> list[Task]:
    from rlvr_code.envs import humaneval_task, mbpp_task
    from tests.code.helpers_code import humaneval_rows, mbpp_rows

    if source == "humaneval":
        return [humaneval_task(r) for r in humaneval_rows()]
    return [mbpp_task(r) for r in mbpp_rows()]


@pytest.mark.parametrize("source", ["humaneval", "mbpp"])
def test_run_tests_reports_quote_no_hidden_literal_on_a_sample(source):
    _reports_without_hidden_literals(_source_tasks(source)[::60], source)


@pytest.mark.slow
@pytest.mark.timeout(2400)  # every task, three programs, two runs each, on a shared 2-core machine
@pytest.mark.parametrize("source", ["humaneval", "mbpp"])
def test_run_tests_reports_quote_no_hidden_literal_on_every_task(source):
    _reports_without_hidden_literals(_source_tasks(source), source)
