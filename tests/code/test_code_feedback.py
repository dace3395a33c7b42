"""Multi-turn feedback never leaks a hidden test (issue 26, issue 28's test split).

Before, a failed attempt was answered with the first failing assert (its input and expected
value) or, for stdin/stdout, the expected output and stderr: a program that hardcodes what the
feedback showed reached reward 1 on 17 of 20 MBPP tasks in 4 turns. Now public tests (those the
prompt shows) are quoted from a run of them alone, hidden tests only counted.
"""

from __future__ import annotations

import ast
import re

import pytest

from rlvr_code.envs import CodeEnv, humaneval_task, mbpp_task
from rlvr_code.feedback import attempt_feedback
from rlvr_code.split import CodeTest, split_tests
from rlvr_code.verifier import CodeVerifier
from rlvr_envs import python_ast
from rlvr_envs.types import Reason, Task, Verdict
from tests.code.helpers_code import fenced, humaneval_rows, mbpp_rows
from tests.helpers.sandbox import needs_bwrap


class LeakyCodeEnv(CodeEnv):
    """The feedback as it was: the first failing test, quoted in full."""

    def feedback(self, task: Task, verdict: Verdict) -> str:
        details = verdict.details if isinstance(verdict.details, dict) else {}
        first = details.get("first_error") or verdict.reason.value
        return f"Your program did not pass the tests. First problem: {first}\nFix the program and answer again."


def _calls_with_answers(text: str, name: str) -> dict[str, object]:
    """``repr(args) -> expected`` for every ``name(literal args) == literal`` the text shows, in
    asserts (``assert f(1) == 2``) and docstring examples (``>>> f(1)`` then ``2``)."""
    found: dict[str, object] = {}
    candidates = re.findall(r"assert (.+)", text)
    candidates += [f"{call} == {result}" for call, result in re.findall(r">>> (.+)\n\s*(\S.*)", text)]
    for line in candidates:
        line = re.split(r": (?:AssertionError|ValueError)", line)[0].replace("candidate(", f"{name}(")
        try:
            node = python_ast.parse_expression(line.strip()).body
        except SyntaxError:
            continue
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
            continue
        call, expected = node.left, node.comparators[0]
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == name):
            continue
        try:
            found[repr(tuple(ast.literal_eval(a) for a in call.args))] = ast.literal_eval(expected)
        except (ValueError, SyntaxError):
            continue
    return found


def lookup_table_program(name: str, table: dict[str, object]) -> str:
    """Answers what it was shown; otherwise prints and raises what it saw (for the feedback)."""
    return fenced(
        f"_TABLE = {table!r}\n_SEEN = []\n"
        f"def {name}(*args):\n"
        "    if repr(args) in _TABLE:\n"
        "        return _TABLE[repr(args)]\n"
        "    _SEEN.append(args)\n"
        "    print('saw', _SEEN)\n"
        "    raise ValueError(repr(_SEEN))\n"
    )


def lookup_table_attack(env: CodeEnv, task: Task, turns: int = 4) -> float:
    """Mine the prompt and each turn's feedback for calls and answers, hardcode them, retry."""
    shown = re.search(r"assert (\w+)\(", task.prompt)
    name = task.answer.get("entry_point") or (shown.group(1) if shown else "f")
    env.reset(options={"task": task})
    table = _calls_with_answers(task.prompt, name)
    reward = 0.0
    for _ in range(turns):
        obs, reward, terminated, truncated, _ = env.step(lookup_table_program(name, table))
        if terminated or truncated:
            break
        table.update(_calls_with_answers(obs, name))
    return reward


def attack_sample() -> list[Task]:
    """20 MBPP and 10 HumanEval tasks with straight-line tests (the attack's best case)."""
    mbpp = [mbpp_task(r) for r in mbpp_rows() if r["task_id"] in range(11, 31)]
    humaneval = [humaneval_task(humaneval_rows()[i]) for i in (2, 3, 4, 7, 11, 13, 15, 23, 29, 45)]
    return mbpp + humaneval


@needs_bwrap
def test_the_lookup_table_attack_scores_zero_and_did_win_with_the_old_feedback():
    tasks = attack_sample()
    env = _env_for(CodeEnv, tasks)
    assert [lookup_table_attack(env, task) for task in tasks] == [0.0] * len(tasks)
    leaky = _env_for(LeakyCodeEnv, tasks)
    won = sum(lookup_table_attack(leaky, task) == 1.0 for task in tasks[:20])
    assert won >= 15, won  # the same attack against the old feedback (17 of 20 in the campaign)


def _env_for(cls: type[CodeEnv], tasks: list[Task]) -> CodeEnv:
    rows = [{"id": t.id, "prompt": t.prompt, "answer": t.answer} for t in tasks]
    # Later turns paid in full (round 10: the default pays turn 1 only): the feedback is what is tested.
    return cls(data=rows, max_turns=4, retry_discount=1.0, isolation="inline", timeout_s=10)


def _spaced(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _loose(text: str) -> str:
    """For deciding what is shown: spacing and the kind of quotes do not matter."""
    return re.sub(r"\s+", "", text).replace('"', "'")


def _literals(source: str) -> list[object]:
    """The literal values in an assert's condition (its inputs and expected values, not its message)."""
    try:
        statement = python_ast.parse_module(source).body[0]
    except (SyntaxError, IndexError):
        return []
    if not isinstance(statement, ast.Assert):
        return []
    found = []
    for node in ast.walk(statement.test):
        if isinstance(node, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set)):
            try:
                found.append(ast.literal_eval(node))
            except ValueError:
                continue
    return found


def hidden_literals(hidden: list[CodeTest], public: list[CodeTest], prompt: str) -> set[str]:
    """Literals of hidden tests, as text, that nothing public shows (a literal is public when a
    public test holds the same value, or the prompt shows any of its forms)."""
    public_values = {repr(value) for test in public for value in _literals(test.source)}
    squashed = _loose(prompt)
    found = set()
    for test in hidden:
        for value in _literals(test.source):
            forms = {_spaced(form) for form in (repr(value), str(value))}
            if repr(value) in public_values or any(len(form.strip()) < 4 for form in forms):
                continue
            if not any(_loose(form) in squashed for form in forms):
                found |= forms
    return found


def assert_no_hidden_literal(task: Task, feedback: str) -> None:
    public, hidden = split_tests(task)
    # Our own sentences ("Your program did not pass...") are fixed text; the rest is quoted.
    quoted = feedback
    for sentence in ("Your program did not pass the tests.", "Fix the program and answer again."):
        quoted = quoted.replace(sentence, "")
    quoted = re.sub(r"Examples from the task: \d+/\d+ passed\.", "", quoted)
    quoted = re.sub(r"Your program did not run: it failed while loading \([\w ]+\)", "", quoted)
    quoted = re.sub(r"Your program did not run: (it ran past its time limit|the answer holds no code)", "", quoted)
    quoted = re.sub(r"Hidden tests: \d+/\d+ passed(; the first failure: [\w ]+)?\.", "", quoted)
    leaked = [form for form in hidden_literals(hidden, public, task.prompt) if form in _spaced(quoted)]
    assert leaked == [], (task.id, leaked, feedback)


def test_feedback_never_quotes_a_hidden_failure_even_when_the_verdict_does():
    task = mbpp_task(next(r for r in mbpp_rows() if r["task_id"] == 2))
    public, hidden = split_tests(task)
    entries = [
        {"name": t.source, "status": "failed", "error": f"ValueError: saw {t.source}", "public": t.public}
        for t in [*public, *hidden]
    ]
    verdict = Verdict.failure(
        Reason.WRONG,
        details={
            "passed": 0,
            "total": 3,
            "tests": entries,
            "hidden": {"passed": 0, "total": 2, "first_error_type": "ValueError"},
            "first_error": entries[1]["error"],
        },
    )
    text = attempt_feedback(verdict, None)
    assert "Hidden tests: 0/2 passed; the first failure: ValueError." in text
    assert_no_hidden_literal(task, text)
    assert hidden[0].source not in text and "saw" not in text


@needs_bwrap
def test_stdio_feedback_shows_the_sample_case_and_only_counts_the_rest():
    statement = "Print twice the number.\n\nExample input:\n21\n\nExample output:\n42\n"
    cases = [{"input": "21\n", "output": "42\n"}, {"input": "123457\n", "output": "246914\n"}]
    env = CodeEnv(data=[{"id": "d", "prompt": statement, "answer": {"format": "stdio", "cases": cases}}], max_turns=3)
    env.reset(options={"task_id": "d"})
    # Echoes its input to stdout and stderr and fails: none of it may come back for the hidden case.
    echo = fenced(
        "import sys\ndata = sys.stdin.read()\nprint(data)\nprint('input was', data, file=sys.stderr)\nsys.exit(3)"
    )
    obs, reward, *_ = env.step(echo)
    assert reward == 0.0
    assert "123457" not in obs and "246914" not in obs and "exit status 3" not in obs.split("Hidden")[1]
    assert "Hidden tests: 0/1 passed; the first failure: runtime error." in obs
    assert "input was 21" in obs  # the public case is quoted in full, its stderr included


@pytest.mark.slow
@pytest.mark.timeout(1200)  # every task of the set, several runs each, on a shared 2-core machine
@needs_bwrap
@pytest.mark.parametrize("source", ["humaneval", "mbpp"])
def test_feedback_never_contains_a_hidden_input_or_expected_value(source):
    """Over every task: a program that records every input it is given and puts all of them in
    its output and its exceptions (so a later public failure would carry the hidden inputs), and
    one that reads the calls sent ahead from its socket at import and fails to load with them."""
    from concurrent.futures import ThreadPoolExecutor

    if source == "humaneval":
        tasks = [humaneval_task(r) for r in humaneval_rows()]
    else:
        tasks = [mbpp_task(r) for r in mbpp_rows()]
    verifier = CodeVerifier(timeout_s=20, workers=2)

    def feedback(task: Task) -> list[tuple[Task, str]]:
        names = [task.answer["entry_point"]] if source == "humaneval" else task.answer["solution_names"]
        recorder = "_SEEN = []\n" + "".join(
            f"def {n}(*args, **kwargs):\n    _SEEN.append((args, kwargs))\n    print(_SEEN)\n"
            f"    raise ValueError(repr(_SEEN))\n"
            for n in names
        )
        out = []
        for program in (recorder, SOCKET_READER):
            verdict = verifier.verify(task, fenced(program))
            public = verifier.run_public(task, fenced(program)) if split_tests(task)[0] else None
            out.append((task, attempt_feedback(verdict, public, program)))
        return out

    with ThreadPoolExecutor(2) as pool:
        for pairs in pool.map(feedback, tasks):
            for task, text in pairs:
                assert_no_hidden_literal(task, text)


@needs_bwrap
def test_the_leak_check_catches_the_old_feedback():
    """The property test above is not vacuous: the old feedback fails it on MBPP tasks."""
    tasks = [mbpp_task(r) for r in mbpp_rows() if r["task_id"] in range(11, 16)]
    verifier = CodeVerifier(timeout_s=10)
    leaky = LeakyCodeEnv(data=[{"id": "x", "prompt": "p", "answer": tasks[0].answer}])
    caught = 0
    for task in tasks:
        (name,) = task.answer["solution_names"][:1]
        # Right on the test the prompt shows, so the first failure is a hidden one.
        attempt = lookup_table_program(name, _calls_with_answers(task.prompt, name))
        old = leaky.feedback(task, verifier.verify(task, attempt))
        try:
            assert_no_hidden_literal(task, old)
        except AssertionError:
            caught += 1
    assert caught >= 4, caught


SOCKET_READER = (
    "import os, select\n"
    "data = b''\n"
    "for _ in range(10):\n"
    "    if select.select([3], [], [], 0.02)[0]:\n"
    "        data += os.read(3, 65536)\n"
    "        break\n"
    "raise ValueError(data.decode('latin-1'))\n"
)


@needs_bwrap
def test_a_program_that_reads_the_calls_sent_ahead_at_import_cannot_show_them():
    """The judge sends a first batch of calls while the program loads; a program can read its
    socket at import and fail with what it read. The load error is never quoted from the run."""
    task = mbpp_task(next(r for r in mbpp_rows() if r["task_id"] == 2))
    env = CodeEnv(data=[{"id": "m", "prompt": task.prompt, "answer": task.answer}], max_turns=2)
    env.reset(options={"task_id": "m"})
    obs, reward, *_ = env.step(fenced(SOCKET_READER))
    assert reward == 0.0
    assert "Your program did not run: it failed while loading (ValueError)" in obs
    assert_no_hidden_literal(task, obs)
    assert '"I", "11"' not in obs and "batch" not in obs
    # A syntax error is still quoted, from the host's own compile of the program.
    env.reset(options={"task_id": "m"})
    obs, *_ = env.step(fenced("def similar_elements(a, b)\n    return a\n"))
    assert "SyntaxError: expected ':' (line 1)" in obs
