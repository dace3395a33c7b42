"""A program ended by the kernel at RLIMIT_CPU is a ``timeout``, never a crash.

In the languages runner the program is its pid namespace's init: the kernel's SIGXCPU at the soft
limit (a default action) does not reach it, and SIGKILL at the hard limit ends it (exit 137 through
bubblewrap); a program that catches or ignores SIGXCPU ends the same way. Both were reported as
``exit status 137`` (runtime error). With no CPU budget of its own (``run_cpu_s``), a run's
RLIMIT_CPU is ``int(cpu_s) + 1`` seconds; the tests set ``cpu_s`` to 0 (1 s soft, 2 s hard) under a
10 s wall clock, so only the rlimit can end the loops.

Serial pass (``tests/conftest.py``): each loop burns ~2 CPU seconds; the runner's sample uids.
"""

from __future__ import annotations

import shutil
import time
from typing import Any

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from rlvr_envs.types import Reason, Task
from tests.code.contest_interactive_cases import fence, need

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

WALL_S = 10.0
CASE = [{"input": "1 2\n", "output": "3\n"}]
LOOPS = {
    "c": ("c", "int main(void){volatile long x=0;for(;;)x++;}"),
    "c-ignores-sigxcpu": (
        "c",
        "#include <signal.h>\nint main(void){signal(SIGXCPU,SIG_IGN);volatile long x=0;for(;;)x++;}",
    ),
    "python": ("python", "while True:\n    pass\n"),
    "python-catches-sigxcpu": (
        "python",
        "import signal\nsignal.signal(signal.SIGXCPU, lambda *a: None)\nwhile True:\n    pass\n",
    ),
}


def _limits() -> dict[str, Any]:
    limits = ContestVerifier(timeout_s=WALL_S).limits(WALL_S)
    return {**limits, "cpu_s": 0.0, "case_s": WALL_S, "run_cpu_s": None}


def _language(name: str) -> Any:
    from rlvr_code.contests.sandboxed import language_spec

    return language_spec(name)


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_loop_killed_at_its_cpu_rlimit_is_a_timeout(name: str) -> None:
    from rlvr_code.languages.runner import run_sample

    language, code = LOOPS[name]
    need(language)
    started = time.monotonic()
    report = run_sample(_language(language), code, CASE, _limits())
    entry = report["tests"][0]
    assert entry["status"] == "timeout", report
    assert "CPU" in entry["error"]
    assert report["run_cpu_s"] >= 1.0  # it did spend the soft limit
    assert time.monotonic() - started < WALL_S  # the rlimit ended it, not the wall clock


def test_an_exit_status_137_without_the_cpu_spent_stays_a_crash() -> None:
    # The same exit status as the kernel's SIGKILL, from a program that spent no CPU: its own exit.
    from rlvr_code.languages.runner import run_sample

    need("c")
    report = run_sample(_language("c"), "int main(void){return 137;}", CASE, _limits())
    assert report["tests"][0]["status"] == "error", report
    assert "137" in report["tests"][0]["error"]


class _RlimitOnly(ContestVerifier):
    """A contest verifier whose runs have a 1 s RLIMIT_CPU and no polled budget."""

    def limits(self, timeout_s: float) -> dict[str, Any]:
        return {**super().limits(timeout_s), "cpu_s": 0.0}


@pytest.mark.parametrize("language", ["c", "python"])
def test_through_the_contest_verifier_a_file_io_loop_is_a_timeout_verdict(language: str) -> None:
    need(language)
    code = LOOPS[language][1]
    task = Task(
        id="loop",
        prompt="a+b",
        answer={"format": "stdio", "language": language, "cases": CASE, "io": {"input": "input.txt"}},
    )
    verdict = _RlimitOnly(timeout_s=WALL_S).verify(task, fence(language, code))
    assert verdict.reward == 0.0 and verdict.reason is Reason.TIMEOUT, verdict.details
