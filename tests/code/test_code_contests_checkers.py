"""Contest tasks verified end to end: each preset's correct solutions score 1 and wrong ones 0;
token and float-tolerance checking; special judges in Python and C++ for problems with many
answers; hostile checkers and hostile contestant output; the task's language enforced; the set's
per-case time limit applied.

Serial pass (``tests/conftest.py``): the runner's sample uids, which the Python hostile suite's
leftover probe would count as its own beside another worker."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import rlvr_envs
from rlvr_code.contests.verifier import ContestVerifier
from rlvr_envs.types import Reason, Task
from tests.code.contest_fixtures import PRESET_ROWS, codecontests_rows, livecodebench_rows, taco_rows
from tests.code.test_code_languages_hostile import leftovers  # the runner samples' probe (uids, dirs, cgroups)

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

PAIR = {"input": "5\n", "output": "1 4\n"}
PAIR_CASES = [PAIR, {"input": "2\n", "output": "1 1\n"}, {"input": "10\n", "output": "3 7\n"}]
PAIR_CHECKER = """import sys
n = int(open(sys.argv[1]).read())
words = open(sys.argv[2]).read().split()
if len(words) != 2 or not all(w.isdigit() for w in words):
    print("want two positive integers", file=sys.stderr)
    sys.exit(2)
a, b = map(int, words)
sys.exit(0 if a >= 1 and b >= 1 and a + b == n else 1)
"""
PAIR_CHECKER_CPP = r"""#include <cstdio>
int main(int argc, char** argv) {
    FILE* in = fopen(argv[1], "r"); FILE* out = fopen(argv[2], "r");
    long long n, a, b;
    if (fscanf(in, "%lld", &n) != 1) return 3;
    if (fscanf(out, "%lld %lld", &a, &b) != 2) return 2;
    return (a >= 1 && b >= 1 && a + b == n) ? 0 : 1;
}
"""
ANY_PAIR = "n = int(input())\nprint(n - 1, 1)\n"  # not the expected "1 4": only a checker accepts it


def fenced(code: str, tag: str = "python") -> str:
    return f"```{tag}\n{code}\n```"


@pytest.fixture(scope="module")
def verifier() -> ContestVerifier:
    made = ContestVerifier(timeout_s=20.0, case_timeout_s=5.0)
    # Started here, the Python sandbox's worker (and its live memory cgroup) is not a leftover of
    # the first test that runs a sample.
    made.verify(stdio([PAIR]), fenced("print(1, 4)"))
    return made


def stdio(cases: list[dict[str, str]], checker: Any = None, **extra: Any) -> Task:
    answer: dict[str, Any] = {"format": "stdio", "cases": cases, **extra}
    if checker is not None:
        answer["checker"] = checker
    return Task(id="t", prompt="p", answer=answer)


def program(source: str, **options: Any) -> dict[str, Any]:
    return {"type": "program", "source": source, **options}


def need_gxx() -> None:
    from rlvr_code.languages import LANGUAGES
    from rlvr_code.languages.runner import toolchain_error

    if toolchain_error(LANGUAGES["cpp"]):
        pytest.skip("g++ missing")


# -- presets: the reference scores 1, a wrong program 0 ----------------------------------------------

WRONG = {
    "1_A. Sum": "a, b = map(int, input().split())\nprint(a - b)\n",
    "2_B. Third": "n = int(input())\nprint(round(n / 3, 3))\n",  # error 3e-4 > 1e-6
    "taco/0": "n = int(input())\nprint(*range(n))\n",
    "taco/1": "def total(xs):\n    return len(xs)\n",
    "apps/4000": "input()\nprint(min(map(int, input().split())))\n",
    "apps/4001": "class Solution:\n    def rev(self, xs):\n        return xs\n",
    "lcb/abc001_a": "a, b = map(int, input().split())\nprint(a + b)\n",
    "lcb/3001": "class Solution:\n    def largestSum(self, nums, k):\n        return sum(nums)\n",
}
RIGHT = {
    "lcb/abc001_a": "a, b = map(int, input().split())\nprint(a * b)\n",
    "lcb/3001": "class Solution:\n    def largestSum(self, nums, k):\n        return sum(sorted(nums)[-k:])\n",
}
SETS = PRESET_ROWS


@pytest.mark.parametrize("env_id", sorted(SETS))
def test_each_preset_scores_a_right_program_1_and_a_wrong_one_0(env_id: str) -> None:
    env = rlvr_envs.make(env_id, data=SETS[env_id](), timeout_s=20)
    for task in env.tasks:
        right = env.gold_completion(task) or fenced(RIGHT[task.id])
        verdict = env.verify(task, right)
        assert verdict.reward == 1.0, (task.id, verdict.reason, verdict.details.get("first_error"))
        wrong = env.verify(task, fenced(WRONG[task.id]))
        assert wrong.reward == 0.0 and wrong.reason == Reason.WRONG, (task.id, wrong.reason)


HOSTILE_CALLS = {
    "an answer equal to everything": "class E:\n    def __eq__(self, o):\n        return True\n",
    "a list equal to everything": "class E(list):\n    def __eq__(self, o):\n        return True\n",
    "a judge builtin replaced": "import builtins\nbuiltins.isinstance = lambda *a: True\nE = lambda: [99]\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_CALLS))
def test_call_based_answers_cannot_fake_equality(name: str) -> None:
    taco = rlvr_envs.make("code-taco-v1", data=taco_rows(), timeout_s=20)
    code = HOSTILE_CALLS[name] + "def total(xs):\n    return E()\n"
    assert taco.verify(taco.tasks[1], fenced(code)).reward == 0.0
    lcb = rlvr_envs.make("code-livecodebench-v1", data=livecodebench_rows(), timeout_s=20)
    method = HOSTILE_CALLS[name] + "class Solution:\n    def largestSum(self, nums, k):\n        return E()\n"
    assert lcb.verify(lcb.tasks[1], fenced(method)).reward == 0.0


def test_public_tests_run_alone_for_feedback() -> None:
    env = rlvr_envs.make("code-contests-v1", data=codecontests_rows(), timeout_s=20)
    task = env.tasks[1]
    assert isinstance(env.verifier, ContestVerifier)
    public = env.verifier.run_public(task, fenced("n = int(input())\nprint(n / 3)\n"))
    assert public.details["total"] == 1 and public.reward == 1.0  # the float checker applies there too


def test_a_cpp_answer_to_a_code_contests_task_in_cpp() -> None:
    need_gxx()
    env = rlvr_envs.make("code-contests-v1", data=codecontests_rows(), language=["python", "cpp"], timeout_s=20)
    task = env.tasks[0]
    from tests.code.contest_fixtures import SUM_CPP

    assert env.verify(task, fenced(SUM_CPP, "cpp")).reward == 1.0
    # spaces instead of a newline: exact tokens accept it, in C++ too (the runner path)
    spaced = SUM_CPP.replace('"%lld\\n"', '"  %lld  "')
    assert env.verify(task, fenced(spaced, "cpp")).reward == 1.0
    assert env.verify(task, fenced(SUM_CPP.replace("a+b", "a*b"), "cpp")).reward == 0.0


# -- built-in checkers ------------------------------------------------------------------------------


def test_tokens_accept_other_spacing_that_line_comparison_rejects(verifier: ContestVerifier) -> None:
    cases = [{"input": "3\n", "output": "1\n2\n3\n"}]
    spaced = fenced("n = int(input())\nprint(*range(1, n + 1))\n")
    assert verifier.verify(stdio(cases), spaced).reward == 0.0
    verdict = verifier.verify(stdio(cases, "tokens"), spaced)
    assert verdict.reward == 1.0 and verdict.details["checker"] == "tokens"
    assert verifier.verify(stdio(cases, "tokens"), fenced("print(1, 2)")).reward == 0.0


def test_code_python_rows_carry_a_checker() -> None:
    row: dict[str, Any] = {"prompt": "Print 1..n.", "inputs": ["3\n"], "outputs": ["1\n2\n3\n"], "checker": "tokens"}
    env = rlvr_envs.make("code-python", data=[row], timeout_s=20)
    assert env.verify(env.tasks[0], fenced("print(*range(1, int(input()) + 1))")).reward == 1.0
    native: dict[str, Any] = {
        "id": "n",
        "prompt": "p",
        "answer": {"format": "stdio", "cases": [PAIR], "checker": program(PAIR_CHECKER)},
    }
    env = rlvr_envs.make("code-python", data=[native], timeout_s=20)
    assert env.verify(env.tasks[0], fenced(ANY_PAIR)).reward == 1.0
    from rlvr_envs.errors import DataError

    with pytest.raises(DataError, match="checker"):
        rlvr_envs.make("code-python", data=[{**row, "checker": "regex"}])
    with pytest.raises(DataError, match="checker"):
        rlvr_envs.make("code-python", data=[{**native, "answer": {**native["answer"], "checker": {"type": "program"}}}])


def test_float_tolerance(verifier: ContestVerifier) -> None:
    cases = [{"input": "1\n", "output": "0.333333333\n"}, {"input": "2\n", "output": "0.666666667\n"}]
    checker = {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}
    assert verifier.verify(stdio(cases, checker), fenced("print(int(input()) / 3)")).reward == 1.0
    assert verifier.verify(stdio(cases, checker), fenced("print('%.4f' % (int(input()) / 3))")).reward == 0.0
    assert verifier.verify(stdio(cases, checker), fenced("print('nan')")).reward == 0.0
    partial = ContestVerifier(timeout_s=20.0, partial_credit=True)
    half = "n = int(input())\nprint(n / 3 if n == 1 else 5)\n"
    assert partial.verify(stdio(cases, checker), fenced(half)).reward == pytest.approx(0.5)


# -- special judges ---------------------------------------------------------------------------------


def test_a_python_special_judge_accepts_any_right_answer(verifier: ContestVerifier) -> None:
    task = stdio(PAIR_CASES, program(PAIR_CHECKER))
    assert verifier.verify(stdio(PAIR_CASES), fenced(ANY_PAIR)).reward == 0.0  # no checker: one answer only
    verdict = verifier.verify(task, fenced(ANY_PAIR))
    assert verdict.reward == 1.0 and verdict.details["checker"] == "program"
    wrong = verifier.verify(task, fenced("n = int(input())\nprint(n, 1)\n"))
    assert wrong.reward == 0.0 and wrong.reason == Reason.WRONG
    assert "checker" in str(wrong.details["first_error"])
    presentation = verifier.verify(task, fenced("print('four one')"))
    assert presentation.reward == 0.0 and presentation.reason == Reason.WRONG


def test_a_wrong_python_answer_reruns_one_case_not_all(
    verifier: ContestVerifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rlvr_code.contests import sandboxed

    runs: list[int] = []
    real = sandboxed.run_outputs

    def counted(language: str, code: str, cases: list[dict[str, str]], limits: dict[str, Any]) -> dict[str, Any]:
        runs.append(len(cases))
        return real(language, code, cases, limits)

    monkeypatch.setattr(sandboxed, "run_outputs", counted)
    task = stdio(PAIR_CASES, program(PAIR_CHECKER))
    assert verifier.verify(task, fenced("n = int(input())\nprint(n, 0)\n")).reward == 0.0
    assert runs == [1]  # the first differing case, rejected: the strict run's verdict stands
    runs.clear()
    assert verifier.verify(task, fenced(ANY_PAIR)).reward == 1.0
    assert runs == [1, 3]
    runs.clear()
    assert verifier.verify(task, fenced("n = int(input())\nprint(1, n - 1)\n")).reward == 1.0
    assert runs == [1, 3]  # "1 4" strictly right on case 0; case 1 ("1 1") too; case 2 differs
    runs.clear()
    partial = ContestVerifier(timeout_s=20.0, partial_credit=True)
    assert partial.verify(task, fenced("n = int(input())\nprint(n - 1, 1 if n != 2 else 0)\n")).reward == pytest.approx(
        2 / 3
    )
    assert runs == [3]


def test_a_cpp_special_judge_for_a_cpp_answer() -> None:
    need_gxx()
    verifier = ContestVerifier(timeout_s=20.0)
    task = stdio(PAIR_CASES, program(PAIR_CHECKER_CPP, language="cpp"), language="cpp")
    answer = '#include <cstdio>\nint main(){int n;scanf("%d",&n);printf("%d 1\\n",n-1);}\n'
    assert verifier.verify(task, fenced(answer, "cpp")).reward == 1.0
    assert verifier.verify(task, fenced(answer.replace("n-1", "n"), "cpp")).reward == 0.0


def test_a_task_s_language_is_enforced_with_a_checker(verifier: ContestVerifier) -> None:
    task = stdio(PAIR_CASES, program(PAIR_CHECKER), language="cpp")
    verdict = verifier.verify(task, fenced(ANY_PAIR))
    assert verdict.reward == 0.0 and verdict.reason == Reason.FORMAT_ERROR
    assert "cpp" in verdict.details["error"]
    env = rlvr_envs.make("code-contests-v1", data=codecontests_rows(), language="cpp", timeout_s=20)
    python_answer = env.verify(env.tasks[0], fenced("a, b = map(int, input().split())\nprint(a + b)"))
    assert python_answer.reward == 0.0 and python_answer.reason == Reason.FORMAT_ERROR


HOSTILE_CHECKERS = {
    "loops forever": "while True:\n    pass\n",
    "sleeps": "import time\ntime.sleep(3600)\n",
    "raises": "raise RuntimeError('checker bug')\n",
    "says fail (testlib 3)": "import sys\nsys.exit(3)\n",
    "claims points (testlib 7)": "import sys\nsys.exit(7)\n",
    "eats memory": "x = bytearray(1 << 34)\n",
    "forks": "import os\nwhile True:\n    os.fork()\n",
    "does not parse": "def (:\n",
    "segfaults": "import ctypes\nctypes.string_at(0)\n",
    "exits by a signal": "import os, signal\nsignal.signal(signal.SIGTERM, signal.SIG_DFL)\nos.abort()\n",
    "floods stdout and stderr": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536); sys.stderr.write('y' * 65536)\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_CHECKERS))
def test_a_hostile_checker_is_a_verifier_error_within_its_budget(verifier: ContestVerifier, name: str) -> None:
    task = stdio([PAIR], program(HOSTILE_CHECKERS[name], timeout_s=1.0, memory_mb=128))
    before = set(leftovers())
    start = time.monotonic()
    verdict = verifier.verify(task, fenced(ANY_PAIR))
    assert verdict.reward == 0.0 and verdict.reason == Reason.VERIFIER_ERROR, (verdict.reason, verdict.details)
    assert time.monotonic() - start < 15.0
    assert sorted(set(leftovers()) - before) == []
    # the verifier still works after it
    assert verifier.verify(stdio(PAIR_CASES, program(PAIR_CHECKER)), fenced(ANY_PAIR)).reward == 1.0


def test_a_checker_s_first_failure_ends_its_run() -> None:
    # partial credit judges every case: a checker hanging on each would cost 1 s x 12 cases
    partial = ContestVerifier(timeout_s=20.0, partial_credit=True)
    task = stdio(PAIR_CASES * 4, program("while True:\n    pass\n", timeout_s=1.0))
    start = time.monotonic()
    verdict = partial.verify(task, fenced(ANY_PAIR))
    assert verdict.reward == 0.0 and verdict.reason == Reason.VERIFIER_ERROR
    assert "1 s budget" in verdict.details["error"]
    assert time.monotonic() - start < 8.0


def test_a_checker_that_leaves_a_process_behind_leaves_nothing(verifier: ContestVerifier) -> None:
    # A sound checker (one that accepts everything is refused by the audit before it runs).
    source = "import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(3600)\n" + PAIR_CHECKER
    before = set(leftovers())
    assert verifier.verify(stdio([PAIR], program(source)), fenced(ANY_PAIR)).reward == 1.0
    assert sorted(set(leftovers()) - before) == []


def test_a_checker_cannot_see_or_change_the_host(verifier: ContestVerifier, tmp_path: Path) -> None:
    marker = tmp_path / "written-by-the-checker"
    tmp_path.chmod(0o777)
    repo = Path(__file__).resolve().parents[2]
    source = f"""import os, sys, socket
seen = [p for p in ({str(repo)!r}, "/etc/passwd", "/root", "/home", {str(tmp_path)!r}) if os.path.exists(p)]
try:
    open({str(marker)!r}, "w").write("x")
except OSError:
    pass
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1)
    seen.append("network")
except OSError:
    pass
print(seen, file=sys.stderr)
sys.exit(0 if seen else 1)
"""
    verdict = verifier.verify(stdio([PAIR], program(source)), fenced(ANY_PAIR))
    assert verdict.reward == 0.0 and verdict.reason == Reason.WRONG, verdict.details
    assert not marker.exists()


def test_contestant_output_cannot_reach_or_fool_the_checker(verifier: ContestVerifier) -> None:
    # The contestant writes where a checker's files would be, then prints a wrong answer: the checker
    # has a /tmp of its own and reads the output it was given.
    exact = program("import sys\nsys.exit(0 if open(sys.argv[2]).read() == open(sys.argv[3]).read() else 1)\n")
    tamper = (
        "open('/tmp/answer.txt', 'w').write('9 9\\n')\nopen('/tmp/output.txt', 'w').write('1 4\\n')\nprint('9 9')\n"
    )
    assert verifier.verify(stdio([PAIR], exact), fenced(tamper)).reward == 0.0
    # An output shaped like the checker's framing is only an output.
    framing = "print('0 0 0')\nprint('1 4')\n"
    assert verifier.verify(stdio([PAIR], program(PAIR_CHECKER)), fenced(framing)).reward == 0.0
    # Non-UTF-8 bytes and huge output never reach a reward.
    binary = "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe 1 4\\n')\n"
    assert verifier.verify(stdio([PAIR], program(PAIR_CHECKER)), fenced(binary)).reward == 0.0
    flood = "import sys\nwhile True:\n    sys.stdout.write('1 ' * 65536)\n"
    verdict = verifier.verify(stdio([PAIR], "tokens"), fenced(flood))
    assert verdict.reward == 0.0 and verdict.reason in (Reason.RUNTIME_ERROR, Reason.TIMEOUT)


def test_a_malformed_checker_is_a_verifier_error_never_a_reward(verifier: ContestVerifier) -> None:
    for spec in ({"type": "nope"}, {"type": "program", "source": ""}):
        verdict = verifier.verify(stdio([PAIR], spec), fenced(ANY_PAIR))
        assert verdict.reward == 0.0 and verdict.reason == Reason.VERIFIER_ERROR
    malformed = stdio([{"input": "1\n"}], "tokens", language="cpp")  # a case without its output
    assert verifier.verify(malformed, fenced("int main(){}", "cpp")).reason == Reason.VERIFIER_ERROR
    asserts = Task(id="a", prompt="p", answer={"format": "asserts", "tests": ["assert f() == 1"], "checker": "tokens"})
    assert verifier.verify(asserts, fenced("def f():\n    return 1")).reason == Reason.VERIFIER_ERROR


def test_the_set_s_per_case_limit_applies(verifier: ContestVerifier) -> None:
    slow = fenced("import time\ntime.sleep(1.5)\nprint(1, 4)\n")
    assert verifier.verify(stdio([PAIR]), slow).reward == 1.0  # the verifier's 5 s per case
    verdict = verifier.verify(stdio([PAIR], case_timeout_s=0.5), slow)
    assert verdict.reward == 0.0 and verdict.reason == Reason.TIMEOUT
    checked = verifier.verify(stdio([PAIR], program(PAIR_CHECKER), case_timeout_s=0.5), slow)
    assert checked.reward == 0.0 and checked.reason == Reason.TIMEOUT
