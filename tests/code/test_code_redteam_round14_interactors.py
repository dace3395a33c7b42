"""Red team round 14, interactors audited as special judges are (``contests.interactor_audit``).

An interactor that accepts a constant contestant (one exiting at once, listening and saying
nothing, printing ``0`` or ``YES`` whatever it is told) paid every policy that found it; one that
crashes on a silent contestant and on garbage alike, with no reference to blame the output, made
every wrong program a ``verifier_error`` a policy prefers to its 0. Each is now refused once per
task: every sample of it, the right program's too, is a ``verifier_error``. Sound interactors
(the guessing game's, a fragile one a reference vouches for) keep paying honest contestants.

Every ``LENIENT`` row, the lenient C++ interactor and the lenient Kattis validator paid its probe
1.0 before (each test below failed); the crashing interactor gave the right program 1.0 and a silent
one a verifier_error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from tests.code.contest_interactive_cases import INTERACTOR_CPP, INTERACTOR_PY, RIGHT, fence, guess_task, need
from tests.code.helpers_code import fenced
from tests.code.kattis_packages import package
from tests.helpers.sandbox import needs_bwrap

_HEAD = "import sys\nn = int(open(sys.argv[1]).read().split()[0])\n"
# Each: the guessing game's interactor with one careless rule; (interactor, a contestant it pays).
LENIENT = {
    # the end of the contestant's output taken as "no wrong guess", so silence wins
    "accepts at the end": (
        _HEAD + "for line in sys.stdin:\n    op, x = line.split()\n    if op == '!':\n"
        "        sys.exit(0 if int(x) == n else 1)\n    print('<' if n < int(x) else '>', flush=True)\n"
        "sys.exit(0)\n",
        "pass",
    ),
    # reads the final answer and forgets to compare it
    "never compares": (_HEAD + "line = sys.stdin.readline()\nsys.exit(0 if line.strip() else 1)\n", "print(0)"),
    # compares with the expected-output file (empty for an interactive case) instead of n
    "reads the wrong file": (
        _HEAD + "want = open(sys.argv[3]).read().split()\nsys.exit(0 if sys.stdin.read().split() == want else 1)\n",
        "pass",
    ),
    # checks the answer's shape only
    "format only": (
        _HEAD + "print(n % 2, flush=True)\nsys.exit(0 if input().strip() in ('YES', 'NO') else 1)\n",
        "input()\nprint('YES')",
    ),
    # tells the answer, then accepts whatever follows
    "says and leaves": (_HEAD + "print(n, flush=True)\nsys.exit(0)\n", "input()"),
}
CRASHING = (
    _HEAD + "for _ in range(25):\n    w = sys.stdin.readline().split()\n"
    "    if len(w) != 2 or w[0] not in '?!' or not w[1].isdigit():\n"
    "        sys.exit(3)  # its own failure, where testlib would reject\n"
    "    x = int(w[1])\n    if w[0] == '!':\n        sys.exit(0 if x == n else 1)\n"
    "    print('<' if n < x else '>' if n > x else '=', flush=True)\nsys.exit(1)\n"
)
"""Fails (exit 3) on silence and on garbage alike, and plays the right contestant soundly."""
LENIENT_CPP = (
    "#include <cstdio>\nint main(int argc, char** argv) {\n  long n, x; char op[4];\n"
    '  std::FILE* f = std::fopen(argv[1], "r"); if (!f || std::fscanf(f, "%ld", &n) != 1) return 3;\n'
    '  if (std::scanf("%3s %ld", op, &x) != 2) return 0;  // the end of the output taken as done\n'
    "  return x == n ? 0 : 1;\n}\n"
)


def _verifier() -> ContestVerifier:
    return ContestVerifier(timeout_s=20.0, case_timeout_s=2.0)


@needs_bwrap
@pytest.mark.parametrize("name", list(LENIENT))
def test_a_lenient_interactor_refuses_its_task(name: str) -> None:
    interactor, probe = LENIENT[name]
    task = guess_task(interactor, task_id=f"r14-lenient-{name}")
    verdict = _verifier().verify(task, fenced(probe))
    assert (verdict.reward, verdict.reason.value) == (0.0, "verifier_error"), verdict.details
    assert "interactor accepts a contestant" in verdict.details["error"]
    # every sample of the task, the right program's too: nothing to prefer
    assert _verifier().verify(task, fenced(RIGHT["python"])).reason.value == "verifier_error"


@needs_bwrap
def test_a_lenient_compiled_interactor_refuses_its_task() -> None:
    need("cpp")
    task = guess_task("", task_id="r14-lenient-cpp")
    task = task.model_copy(update={"answer": {**task.answer, "interactor": {"language": "cpp", "source": LENIENT_CPP}}})
    verdict = _verifier().verify(task, fenced("pass"))
    assert verdict.reason.value == "verifier_error" and "exits at once" in verdict.details["error"], verdict.details


@needs_bwrap
def test_an_interactor_crashing_on_wrong_contestants_refuses_its_task_without_a_reference() -> None:
    task = guess_task(CRASHING, task_id="r14-crashing")
    for program in (RIGHT["python"], "pass", "print('hello world')"):
        verdict = _verifier().verify(task, fenced(program))
        assert (verdict.reward, verdict.reason.value) == (0.0, "verifier_error"), (program, verdict.details)
        assert "interactor failed on a contestant printing nothing" in verdict.details["error"]


@needs_bwrap
def test_a_reference_that_plays_soundly_keeps_the_crashing_interactor() -> None:
    # Its failures are then the output's: a wrong answer, and the right program keeps paying.
    task = guess_task(CRASHING, reference=RIGHT["python"], task_id="r14-crashing-ref")
    assert _verifier().verify(task, fenced(RIGHT["python"])).reward == 1.0
    for program in ("pass", "print('hello world')"):
        verdict = _verifier().verify(task, fenced(program))
        assert (verdict.reward, verdict.reason.value) == (0.0, "wrong"), (program, verdict.details)


@needs_bwrap
@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_sound_interactor_keeps_paying_the_right_contestant(language: str) -> None:
    need(language)
    source = INTERACTOR_PY if language == "python" else INTERACTOR_CPP
    task = guess_task(source, task_id=f"r14-sound-{language}")
    task = task.model_copy(update={"answer": {**task.answer, "interactor": {"language": language, "source": source}}})
    assert _verifier().verify(task, fenced(RIGHT["python"])).reward == 1.0
    for program in ("pass", "print(0)", "print('! 1')"):
        verdict = _verifier().verify(task, fenced(program))
        assert (verdict.reward, verdict.reason.value) == (0.0, "wrong"), (program, verdict.details)


# A Kattis interactive validator (exit 42 accepts, 43 rejects) that takes the end of the
# contestant's output as "no wrong guess": a contestant reading nothing and saying nothing wins.
KATTIS_LENIENT = """import sys
secret = int(open(sys.argv[1]).read())
for line in sys.stdin:
    if not line.strip().isdigit():
        sys.exit(43)
    guess = int(line)
    print("correct" if guess == secret else "lower" if guess > secret else "higher", flush=True)
    if guess == secret:
        sys.exit(42)
sys.exit(42)
"""
KATTIS_BISECT = """lo, hi = 1, 100
while True:
    mid = (lo + hi) // 2
    print(mid, flush=True)
    said = input().strip()
    if said == "correct":
        break
    lo, hi = (lo, mid - 1) if said == "lower" else (mid + 1, hi)
"""


@needs_bwrap
@pytest.mark.parametrize("lenient", [True, False], ids=["lenient", "sound"])
def test_a_kattis_interactive_validator_is_audited_too(tmp_path: Path, lenient: bool) -> None:
    from rlvr_code.contests.kattis import KattisEnv

    # the sound one rejects the end of the output instead
    validator = (
        KATTIS_LENIENT if lenient else KATTIS_LENIENT[: KATTIS_LENIENT.rindex("sys.exit(42)")] + "sys.exit(43)\n"
    )
    cases = {f"secret/{n}": (f"{n}\n", "") for n in (1, 37, 100)}
    files = {"output_validator/validate.py": validator}
    root = package(tmp_path / "guess", "problem_format_version: 2023-07-draft\ntype: interactive\n", cases, files)
    env = KattisEnv(root, timeout_s=10.0)
    [task] = env.tasks
    right = env.verifier.verify(task, fence("python", KATTIS_BISECT))
    silent = env.verifier.verify(task, fence("python", "pass"))
    if lenient:  # before: the silent contestant scored 1.0
        assert (silent.reason.value, right.reason.value) == ("verifier_error", "verifier_error"), silent.details
        assert "interactor accepts a contestant" in silent.details["error"]
    else:
        assert (right.reward, silent.reward, silent.reason.value) == (1.0, 0.0, "wrong"), silent.details


@needs_bwrap
def test_refused_tasks_lists_lenient_interactors_up_front_with_a_verifier() -> None:
    from rlvr_code.contests.task_audit import refused_tasks

    lenient = guess_task(LENIENT["never compares"][0], task_id="r14-upfront-lenient")
    sound = guess_task(INTERACTOR_PY, task_id="r14-upfront-sound")
    verifier = _verifier()
    assert refused_tasks([lenient, sound]) == {}  # without a verifier: special judges only, as before
    found = refused_tasks([lenient, sound], verifier)
    assert list(found) == ["r14-upfront-lenient"] and "interactor accepts a contestant" in found[lenient.id]
    # the samples then meet the same (cached) refusal
    verdict = verifier.verify(lenient, fenced("print(0)"))
    assert verdict.reason.value == "verifier_error" and verdict.details["error"] == f"bad task: {found[lenient.id]}"
