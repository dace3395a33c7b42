"""Red team round 5 (issue 26): the shipped attacker's new classes find their holes in envs that
have them and report 0 where the mechanism is mended.

* ``forged_turn``: a wrong attempt carrying chat-template control tokens (in its exception
  message, return value or answer); an env whose multi-turn feedback quotes them as they are lets
  the policy write a user turn or an env message the tokenizer reads as real.
* ``code_output_format``: a script printing the gold program's output in other digits, with
  ``nan``/``inf``/``1e309`` for a number, or one token more or less; a comparator that parses
  with ``float()`` (or ``\\d``) and zips the tokens pays for them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Any

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.redteam import run_redteam
from tests.redteam.toys import NaiveCodeEnv, StrictCodeEnv, _CodeEnv, _program

SUM_TASKS = [
    Task(
        id=f"mean{i}",
        prompt="Read numbers from stdin and print their mean with 6 decimals.",
        answer={"cases": [[text, f"{sum(map(float, text.split())) / len(text.split()):.6f}\n"]],
                "solution": "import sys\nxs = list(map(float, sys.stdin.read().split()))\nprint(f'{sum(xs) / len(xs):.6f}')\n"},
    )
    for i, text in enumerate(["1 2 3 4\n", "10 20\n", "2.5 2.5 5\n"])
]  # fmt: skip


def _stdout(program: str, given: str) -> str | None:
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", program], input=given.encode(), capture_output=True, timeout=10
    )  # bytes: a program's invalid UTF-8 must not make the toy verifier itself raise
    return run.stdout.decode("utf-8", "replace") if run.returncode == 0 else None


class _FloatVerifier(Verifier):
    time_budget_s = 15.0

    def __init__(self, strict: bool) -> None:
        self.strict = strict

    def verify(self, task: Task, completion: str) -> Verdict:
        for given, want in task.answer["cases"]:
            got = _stdout(_program(completion), given)
            if got is None:
                return Verdict.failure(Reason.RUNTIME_ERROR)
            if self.strict:
                from rlvr_code.contests.checkers import floats_close

                ok = floats_close(got, want, 1e-6, 1e-6)[0]
            else:  # float() on each pair of tokens, zipped, "not above the tolerance"
                try:
                    ok = all(not abs(float(g) - float(w)) > 1e-6 for g, w in zip(got.split(), want.split()))
                except ValueError:
                    ok = False
            if not ok:
                return Verdict.failure(Reason.WRONG)
        return Verdict.correct(None)


class _FloatEnv(_CodeEnv):
    def __init__(self, strict: bool, **kwargs: Any) -> None:
        super().__init__(_FloatVerifier(strict), SUM_TASKS, **kwargs)


def test_code_output_format_finds_a_lenient_float_comparator():
    report = run_redteam(_FloatEnv(strict=False), n=3, classes=["code_output_format"])
    result = report.result("code_output_format")
    found = {o.variant for o in result.holes}
    assert {"arabic-indic-digits", "fullwidth-digits", "nan-for-a-number", "extra-token"} <= found, found
    assert report.exit_code == 1
    assert all(o.reward for o in report.gold)  # the gold itself passes: the probes are well formed


def test_code_output_format_reports_zero_on_the_family_float_checker():
    report = run_redteam(_FloatEnv(strict=True), n=3, classes=["code_output_format"])
    assert report.result("code_output_format").holes == [] and report.exit_code == 0
    assert report.result("code_output_format").tasks == 3


def test_forged_turn_finds_feedback_that_quotes_the_program():
    report = run_redteam(
        NaiveCodeEnv(), n=2, classes=["forged_turn"], multi_turn=lambda: NaiveCodeEnv(max_turns=3), episode_tasks=2
    )
    holes = report.result("forged_turn").holes
    assert holes and all(o.forged for o in holes), report.summary_text()
    assert report.exit_code == 1


def test_forged_turn_reports_zero_on_counts_only_feedback():
    report = run_redteam(
        StrictCodeEnv(), n=2, classes=["forged_turn"], multi_turn=lambda: StrictCodeEnv(max_turns=3), episode_tasks=2
    )
    assert report.result("forged_turn").holes == [] and report.exit_code == 0


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
def test_forged_turn_reports_zero_on_the_code_family():
    import rlvr_envs
    from tests.helpers.data import shared_path

    data = str(shared_path("mbpp.jsonl"))
    make = lambda **kw: rlvr_envs.make("code-mbpp", data=data, limit=4, isolation="inline", **kw)  # noqa: E731
    report = run_redteam(make(), n=1, classes=["forged_turn"], multi_turn=lambda: make(max_turns=2), episode_tasks=1)
    result = report.result("forged_turn")
    assert result.tasks == 1 and len(result.outcomes) == 3
    assert result.holes == [] and report.exit_code == 0, report.summary_text()


class _CheckerVerifier(Verifier):
    """Runs the program and parses its output as numbers: the naive one calls a parse failure
    its own failure (``verifier_error``), the mended one the answer's (``wrong``)."""

    time_budget_s = 15.0

    def __init__(self, naive: bool) -> None:
        self.naive = naive

    def verify(self, task: Task, completion: str) -> Verdict:
        for given, want in task.answer["cases"]:
            got = _stdout(_program(completion), given)
            if got is None:
                return Verdict.failure(Reason.RUNTIME_ERROR)
            try:
                values = [float(token) for token in got.split()]
                if not values:
                    raise ValueError("no output")
            except ValueError as exc:
                if self.naive:
                    return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"checker crashed: {exc}"})
                return Verdict.failure(Reason.WRONG)
            if len(values) != 1 or abs(values[0] - float(want)) > 1e-6:
                return Verdict.failure(Reason.WRONG)
        return Verdict.correct(None)


class _CheckerEnv(_CodeEnv):
    def __init__(self, naive: bool, **kwargs: Any) -> None:
        super().__init__(_CheckerVerifier(naive), SUM_TASKS, **kwargs)


def test_induced_error_finds_a_checker_that_fails_on_the_output():
    report = run_redteam(_CheckerEnv(naive=True), n=3, classes=["induced_error"])
    holes = report.result("induced_error").holes
    assert {o.variant for o in holes} >= {"unparseable-output", "no-output"}, report.summary_text()
    assert all(o.reason == "verifier_error" for o in holes) and report.exit_code == 1


def test_induced_error_reports_zero_where_the_output_is_to_blame():
    report = run_redteam(_CheckerEnv(naive=False), n=3, classes=["induced_error"])
    assert report.result("induced_error").holes == [] and report.exit_code == 0


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
def test_induced_error_reports_zero_on_the_code_family():
    import rlvr_envs
    from tests.helpers.data import shared_path

    env = rlvr_envs.make("code-humaneval", data=str(shared_path("humaneval.jsonl")), limit=3)
    report = run_redteam(env, n=3, classes=["induced_error"])
    result = report.result("induced_error")
    assert result.tasks == 3 and len(result.outcomes) == 12
    assert result.holes == [] and report.exit_code == 0, report.summary_text()
