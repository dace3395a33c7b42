"""Interactive contest tasks (``answer["interactor"]``): guess-the-number with an interactor in
Python and in C++, contestants in Python and C++. A right strategy scores 1, a wrong one 0; hostile
contestants and interactors (exit tricks, killing their parent, floods, deadlocks, hangs) score 0
or ``verifier_error`` within the budget, with nothing left behind.

Serial pass (``tests/conftest.py``): the runner's sample uids.
"""

from __future__ import annotations

import shutil
import time

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from rlvr_envs.types import Reason, Task
from tests.code.contest_interactive_cases import INTERACTOR_PY, RIGHT, WRONG, fence, interactive_task, need
from tests.code.test_code_languages_hostile import leftovers

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

SAMPLE_S, CASE_S = 12.0, 1.5


@pytest.fixture(scope="module")
def verifier() -> ContestVerifier:
    return ContestVerifier(timeout_s=SAMPLE_S, case_timeout_s=CASE_S)


PAIRS = [(i, c) for i in ("python", "cpp") for c in ("python", "cpp")]


@pytest.mark.parametrize(("interactor", "contestant"), PAIRS)
def test_the_right_strategy_scores_1_and_a_wrong_one_0(verifier: ContestVerifier, interactor: str, contestant: str):
    need(interactor)
    need(contestant)
    task = Task(id="guess", prompt="guess", answer=interactive_task(interactor, contestant))
    right = verifier.verify(task, fence(contestant, RIGHT[contestant]))
    assert right.reward == 1.0, right.details
    assert right.details["runner"] == "interactive" and right.details["passed"] == 4
    wrong = verifier.verify(task, fence(contestant, WRONG[contestant]))
    assert wrong.reward == 0.0 and wrong.reason is Reason.WRONG, wrong.details
    assert "interactor" in wrong.details["first_error"]


def test_a_task_accepting_several_languages_routes_by_the_fence(verifier: ContestVerifier) -> None:
    need("cpp")
    task = Task(id="guess", prompt="guess", answer=interactive_task("python", ["python", "cpp"]))
    for language in ("python", "cpp"):
        verdict = verifier.verify(task, fence(language, RIGHT[language]))
        assert verdict.reward == 1.0 and verdict.details["language"] == language, verdict.details


HOSTILE_CONTESTANTS = {
    ("python", "exit at once"): "import sys\nsys.exit(0)\n",
    ("python", "kill the parent and every process it may"): "import os, signal\n"
    "for pid in (os.getppid(), 1, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError:\n"
    "        pass\nprint('! 1', flush=True)\n",
    ("python", "flood queries without reading the answers"): "while True:\n    print('? 1', flush=True)\n",
    ("python", "flood stderr"): "import sys\nfor _ in range(20000):\n    sys.stderr.write('x' * 4096)\n",
    ("python", "deadlock: a query never flushed, then a read"): "import sys\nsys.stdout.write('? 5\\n')\ninput()\n",
    ("python", "never write, never read"): "import time\ntime.sleep(100)\n",
    ("python", "daemon left behind"): "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
    "    if os.fork() == 0:\n        time.sleep(100)\n    os._exit(0)\nprint('! 1', flush=True)\n",
    ("python", "output garbage"): "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 100)\nsys.stdout.flush()\n",
    ("cpp", "flood without reading"): '#include <cstdio>\nint main(){for(;;)std::printf("? 1\\n");}',
    ("cpp", "kill the parent"): "#include <csignal>\n#include <unistd.h>\nint main(){kill(getppid(),SIGKILL);"
    "kill(-1,SIGKILL);return 0;}",
    ("cpp", "infinite loop"): "int main(){volatile long x=0;for(;;)x++;}",
}


@pytest.mark.parametrize(("language", "name"), sorted(HOSTILE_CONTESTANTS))
def test_hostile_contestants_score_zero_within_the_budget(verifier: ContestVerifier, language: str, name: str):
    need(language)
    task = Task(id="guess", prompt="guess", answer=interactive_task("python", language))
    before = set(leftovers())
    started = time.monotonic()
    verdict = verifier.verify(task, fence(language, HOSTILE_CONTESTANTS[(language, name)]))
    took = time.monotonic() - started
    assert verdict.reward == 0.0, verdict.details
    assert verdict.reason in (Reason.WRONG, Reason.TIMEOUT, Reason.RUNTIME_ERROR), verdict.details
    assert took < SAMPLE_S + 10.0, took
    assert sorted(set(leftovers()) - before) == []


HOSTILE_INTERACTORS = {
    "exit 3 (testlib's fail)": "import sys\nsys.exit(3)\n",
    "an uncaught exception": "raise RuntimeError('the interactor has a bug')\n",
    # a fault the kernel delivers (its own kill(SIGKILL) is ignored: it is its namespace's init)
    "killed by a signal": "import ctypes\nctypes.string_at(0)\n",
    "kill the parent, then fail": "import os, signal, sys\nfor pid in (os.getppid(), 1, -1):\n    try:\n"
    "        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass\nsys.exit(3)\n",
    "flood stderr, then fail": "import sys\nfor _ in range(20000):\n    sys.stderr.write('x' * 4096)\nsys.exit(3)\n",
    "hang without reading": "import time\ntime.sleep(100)\n",
    "spin": "while True:\n    pass\n",
    "flood the contestant": "import sys\nwhile True:\n    sys.stdout.write('<\\n' * 1000)\n",
    "memory bomb": "x = []\nwhile True:\n    x.append(bytearray(64 << 20))\n",
    "does not compile": "def (:\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_INTERACTORS))
def test_hostile_interactors_never_give_a_reward(verifier: ContestVerifier, name: str) -> None:
    answer = interactive_task("python", "python")
    answer["interactor"] = {"language": "python", "source": HOSTILE_INTERACTORS[name], "timeout_s": 1.0}
    task = Task(id="guess", prompt="guess", answer=answer)
    before = set(leftovers())
    started = time.monotonic()
    verdict = verifier.verify(task, fence("python", RIGHT["python"]))
    took = time.monotonic() - started
    assert verdict.reward == 0.0, verdict.details
    assert verdict.reason in (Reason.VERIFIER_ERROR, Reason.TIMEOUT, Reason.WRONG, Reason.RUNTIME_ERROR), verdict
    assert took < SAMPLE_S + 10.0, took
    assert sorted(set(leftovers()) - before) == []
    # The verifier still works after it.
    honest = Task(id="guess", prompt="guess", answer=interactive_task("python", "python"))
    assert verifier.verify(honest, fence("python", RIGHT["python"])).reward == 1.0


@pytest.mark.parametrize(
    "spec",
    [
        {"language": "cobol", "source": INTERACTOR_PY},
        {"language": "python", "source": ""},
        {"language": "python"},
        {"language": "python", "source": INTERACTOR_PY, "timeout_s": 0},
        {"language": "python", "source": INTERACTOR_PY, "timeout_s": float("inf")},
        {"language": "python", "source": INTERACTOR_PY, "memory_mb": 1 << 20},
        {"language": "python", "source": INTERACTOR_PY, "extra": 1},
        "print(1)",
    ],
)
def test_a_malformed_interactor_is_a_bad_task(verifier: ContestVerifier, spec: object) -> None:
    answer = {**interactive_task("python", "python"), "interactor": spec}
    verdict = verifier.verify(Task(id="g", prompt="g", answer=answer), fence("python", RIGHT["python"]))
    assert verdict.reason is Reason.VERIFIER_ERROR and "bad task" in verdict.details["error"], verdict.details


def test_an_interactor_beside_a_checker_or_io_is_a_bad_task(verifier: ContestVerifier) -> None:
    for extra in ({"checker": {"type": "tokens"}}, {"io": {"input": "input.txt"}}):
        answer = {**interactive_task("python", "python"), **extra}
        verdict = verifier.verify(Task(id="g", prompt="g", answer=answer), fence("python", RIGHT["python"]))
        assert verdict.reason is Reason.VERIFIER_ERROR and "bad task" in verdict.details["error"], extra
