"""A task's CPU budget per run (``cpu_limit_s``) in the other languages' runner, and calibration.

The runner polls the CPU clocks of a run's processes and ends one that spends its budget as a
``timeout``, so a calibrated task's infinite loop costs its CPU budget, not the wall limit; a
program that waits without spending CPU (or closed its output first) is still bounded by the
wall limit; an honest program under the budget passes; ``calibrate`` measures a C reference's CPU.
Serial pass (``tests/conftest.py``): the runner's sample uids.
"""

from __future__ import annotations

import shutil
import time

import pytest

import rlvr_envs
from rlvr_code.limits import CPU_LIMIT_KEY, LimitPolicy, calibrate
from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason, Task
from tests.code.languages_cases import SOLUTIONS, fenced_in

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

CASES = [{"input": "1 2\n", "output": "3\n"}, {"input": "10 20\n", "output": "30\n"}]
WALL_S = 30.0

LOOPS = {
    "c": "int main(void){volatile long x=0;for(;;)x++;}",
    # the loop in a child process the program waits for: the budget counts every process of the run
    "c-child": "#include <unistd.h>\n#include <sys/wait.h>\n"
    "int main(void){if(fork()==0){volatile long x=0;for(;;)x++;}wait(0);return 0;}",
    # a series of short-lived spinning children, each reaped before the next: their CPU counts too
    "c-children": "#include <unistd.h>\n#include <sys/wait.h>\n#include <time.h>\n"
    "int main(void){for(;;){if(fork()==0){clock_t t=clock();while(clock()-t<CLOCKS_PER_SEC/20);_exit(0);}"
    "wait(0);}}",
    # four goroutines spinning on the runtime's threads
    "go": "package main\n\nfunc spin() {\n\tx := 0\n\tfor {\n\t\tx++\n\t}\n}\n\n"
    "func main() {\n\tfor i := 0; i < 3; i++ {\n\t\tgo spin()\n\t}\n\tspin()\n}\n",
}


def need(language: str) -> None:
    from rlvr_code.languages import LANGUAGES
    from rlvr_code.languages.runner import toolchain_error

    if toolchain_error(LANGUAGES[language]):
        pytest.skip(f"{language} toolchain missing")


def task(language: str, **answer: object) -> Task:
    return Task(id="sum", prompt="a+b", answer={"format": "stdio", "language": language, "cases": CASES, **answer})


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=WALL_S)


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_a_loop_ends_at_its_cpu_budget_long_before_the_wall_limit(verifier: CodeVerifier, name: str) -> None:
    language = name.split("-")[0]
    need(language)
    from rlvr_code.languages import LANGUAGES
    from rlvr_code.languages.runner import run_sample

    limits = verifier.task_limits({"timeout_s": WALL_S, "cpu_limit_s": 0.3})
    started = time.monotonic()
    report = run_sample(LANGUAGES[language], LOOPS[name], CASES[:1], limits)
    ran = time.monotonic() - started - _compile_s(language)
    assert report["tests"][0]["status"] == "timeout", report
    assert "CPU budget" in report["tests"][0]["error"]
    # 0.3 s of CPU (less on several cores at once), never the 30 s wall limit.
    assert ran < 6.0, ran
    # Through the verifier: a timeout verdict, the first case ends the run of the rest.
    verdict = verifier.verify(task(language, timeout_s=WALL_S, cpu_limit_s=0.3), fenced_in(language, LOOPS[name]))
    assert verdict.reward == 0.0 and verdict.reason is Reason.TIMEOUT, verdict.details


_COMPILE: dict[str, float] = {}


def _compile_s(language: str) -> float:
    """How long the language's compile of a trivial program takes here (measured once)."""
    if language not in _COMPILE:
        from rlvr_code.languages import LANGUAGES
        from rlvr_code.languages.runner import run_sample

        started = time.monotonic()
        run_sample(LANGUAGES[language], SOLUTIONS[language]["a_plus_b"], [], {"wall_s": 10, "cpu_s": 10, **_LIMITS})
        _COMPILE[language] = time.monotonic() - started
    return _COMPILE[language]


_LIMITS = {"memory_mb": 1024, "file_mb": 16, "processes": 16, "output_bytes": 1 << 20, "total_memory_mb": 1536}


@pytest.mark.parametrize("language", ["c", "go"])
def test_an_honest_program_passes_under_its_budget(verifier: CodeVerifier, language: str) -> None:
    need(language)
    verdict = verifier.verify(
        task(language, timeout_s=WALL_S, cpu_limit_s=0.3), fenced_in(language, SOLUTIONS[language]["a_plus_b"])
    )
    assert verdict.reward == 1.0, verdict.details


@pytest.mark.parametrize(
    "program",
    [
        "#include <unistd.h>\nint main(void){sleep(100);return 0;}",
        # closes its output first: the run still ends at the wall limit, not when its pipes close
        "#include <unistd.h>\nint main(void){close(1);close(2);sleep(100);return 0;}",
    ],
)
def test_a_program_that_only_waits_is_bounded_by_the_wall_limit(verifier: CodeVerifier, program: str) -> None:
    need("c")
    started = time.monotonic()
    verdict = verifier.verify(task("c", timeout_s=1.5, cpu_limit_s=0.05), fenced_in("c", program))
    took = time.monotonic() - started
    assert verdict.reason is Reason.TIMEOUT, verdict.details
    assert "no result within" in verdict.details["first_error"]
    assert took < 1.5 + _compile_s("c") + 3.0, took


def test_a_bad_budget_in_a_task_is_ignored_not_trusted(verifier: CodeVerifier) -> None:
    need("c")
    for bad in (0, -1, "0.01", True, float("nan")):
        verdict = verifier.verify(task("c", cpu_limit_s=bad), fenced_in("c", SOLUTIONS["c"]["a_plus_b"]))
        assert verdict.reward == 1.0, (bad, verdict.details)


def test_calibrate_measures_a_c_reference_and_its_budget_stops_a_loop(verifier: CodeVerifier) -> None:
    need("c")
    row = {
        "id": "sum",
        "prompt": "a+b",
        "answer": {
            "format": "stdio",
            "language": "c",
            "cases": CASES,
            "canonical_solution": SOLUTIONS["c"]["a_plus_b"],
        },
    }
    env = rlvr_envs.make("code-python", data=[row], timeout_s=WALL_S)
    code_verifier = env.verifier
    assert isinstance(code_verifier, CodeVerifier)
    gold = fenced_in("c", SOLUTIONS["c"]["a_plus_b"])
    verdict, cpu = code_verifier.verify_measured(env.tasks[0], gold)
    assert verdict.reward == 1.0 and cpu is not None and 0.0 < cpu < 1.0, (verdict.details, cpu)
    result = calibrate(env, repeats=2)
    info = result.rows[0]
    policy = LimitPolicy()
    assert info["source"] == "calibrated" and info["reference_cpu_s"] > 0, info
    assert policy.cpu_floor_s <= info[CPU_LIMIT_KEY] <= info["limit_s"]
    calibrated = result.tasks[0]
    assert calibrated.answer[CPU_LIMIT_KEY] == info[CPU_LIMIT_KEY]
    assert code_verifier.verify(calibrated, gold).reward == 1.0
    started = time.monotonic()
    looped = code_verifier.verify(calibrated, fenced_in("c", LOOPS["c"]))
    assert looped.reason is Reason.TIMEOUT and "CPU budget" in looped.details["first_error"], looped.details
    assert time.monotonic() - started < calibrated.answer["timeout_s"] + 3.0
