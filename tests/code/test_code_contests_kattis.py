"""Kattis problem packages (``rlvr_code.contests.kattis``): packages the tests write, and a real
set's local copy, Kattis' own example problems from its problemtools sources.

The real copy is fetched by ``scripts/fetch_kattis_examples.sh`` (PyPI, pinned by SHA-256) into
``$RLVR_KATTIS_EXAMPLES`` or ``~/.cache/rlvr-envs/kattis-examples``; ``make setup`` runs it, so a
fresh CI machine has it; nothing is fetched here and its tests skip, saying how to get it, where
it is absent. There, through the registered id ``code-kattis-v4``, every accepted submission in
Python, C, C++, Go, JavaScript and Rust scores 1, passing the public examples (``data/sample``)
and the hidden data under the package's own validator (a C++ output validator, a C++ interactive
validator, the default validator), and every wrong, crashing or too slow one scores 0; Java's
accepted ones too, whose classes are named after their problems (``Language.for_source``).
Serial pass (``tests/conftest.py``): the runner's sample uids, C++ compiles.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import rlvr_envs
from rlvr_code.contests.kattis import FETCH_SCRIPT, KattisEnv, default_checker, missing_examples, read_package
from rlvr_code.contests.kattis import examples_dir as fetched_dir
from rlvr_envs.errors import DataError, DataUnavailableError
from rlvr_envs.types import Reason, Verdict
from tests.code.contest_interactive_cases import fence, need
from tests.code.kattis_packages import write

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

LANGUAGES = ["python", "cpp", "c", "java", "go", "javascript", "rust"]
EXTENSIONS = {
    **{".py": "python", ".cc": "cpp", ".cpp": "cpp", ".c": "c"},
    **{".java": "java", ".go": "go", ".js": "javascript", ".rs": "rust"},
}

SUM_VALIDATOR = """import sys
want = int(open(sys.argv[2]).read())
got = sys.stdin.read().split()
if len(got) == 1 and got[0].lstrip("-").isdigit() and int(got[0]) == want:
    sys.exit(42)
with open(sys.argv[3] + "/judgemessage.txt", "w") as fh:
    fh.write(f"wanted {want}, got {got[:3]}")
sys.exit(43)
"""
GUESS_VALIDATOR = """import sys
secret = int(open(sys.argv[1]).read())
for _ in range(8):
    line = sys.stdin.readline()
    if not line.strip().isdigit():
        sys.exit(43)
    guess = int(line)
    print("correct" if guess == secret else "lower" if guess > secret else "higher", flush=True)
    if guess == secret:
        sys.exit(42)
sys.exit(43)
"""
GUESS_RIGHT = """lo, hi = 1, 100
while True:
    mid = (lo + hi) // 2
    print(mid, flush=True)
    said = input().strip()
    if said == "correct":
        break
    lo, hi = (lo, mid - 1) if said == "lower" else (mid + 1, hi)
"""


def sum_package(root: Path, validator: str = SUM_VALIDATOR) -> Path:
    return write(
        root,
        {
            "problem.yaml": "name: Sum\nsource: tests\nvalidation: custom\n",
            "problem_statement/problem.en.tex": "Print a + b.",
            "data/sample/1.in": "1 2\n",
            "data/sample/1.ans": "3\n",
            "data/secret/group/2.in": "40 2\n",
            "data/secret/group/2.ans": "42\n",
            "output_validators/sum/validate.py": validator,
            "submissions/accepted/sum.py": "a, b = map(int, input().split())\nprint(a + b)\n",
            "submissions/accepted/old.py": "#!/usr/bin/env python2\nprint 3\n",
        },
    )


def test_a_package_with_a_custom_validator_judges_through_it(tmp_path: Path) -> None:
    env = KattisEnv(sum_package(tmp_path / "sum"), timeout_s=10.0)
    [task] = env.tasks
    assert task.id == "kattis/sum" and task.answer["public_tests"] == [0]
    assert [c["input"] for c in task.answer["cases"]] == ["1 2\n", "40 2\n"]
    assert task.answer["checker"]["protocol"] == "kattis" and task.answer["checker"]["language"] == "python"
    gold = env.gold_completion(task)
    assert gold is not None and "print(a + b)" in gold  # the Python 2 submission is not taken
    assert env.verifier.verify(task, gold).reward == 1.0
    # Zero-padded: not the answer file's text, but the validator reads a number and accepts it.
    padded = env.verifier.verify(task, fence("python", "a, b = map(int, input().split())\nprint(f'{a + b:05d}')"))
    assert padded.reward == 1.0, padded.details
    wrong = env.verifier.verify(task, fence("python", "a, b = map(int, input().split())\nprint(a - b)"))
    assert wrong.reward == 0.0 and wrong.reason is Reason.WRONG, wrong.details
    assert "wanted 3" in wrong.details["first_error"]  # the validator's judgemessage.txt


def test_a_validator_exit_kattis_does_not_define_is_the_verifiers_failure(tmp_path: Path) -> None:
    broken = "import sys\nsys.exit(0)\n"  # Kattis: 42 or 43; anything else is the judge's error
    env = KattisEnv(sum_package(tmp_path / "sum", broken), timeout_s=10.0)
    verdict = env.verifier.verify(env.tasks[0], fence("python", "print(0)"))
    assert verdict.reward == 0.0 and verdict.reason is Reason.VERIFIER_ERROR, verdict.details


def test_an_interactive_package_runs_its_validator_as_the_interactor(tmp_path: Path) -> None:
    package = write(
        tmp_path / "guess",
        {
            "problem.yaml": "problem_format_version: 2023-07-draft\ntype: interactive\nname:\n  en: Guess\n",
            "statement/problem.en.md": "Guess the number in 1..100.",
            "data/sample/1.interaction": ">50\n<correct\n",
            **{f"data/secret/{n}.in": f"{n}\n" for n in (1, 37, 100)},
            **{f"data/secret/{n}.ans": "" for n in (1, 37, 100)},
            "output_validator/validate.py": GUESS_VALIDATOR,
        },
    )
    env = KattisEnv(package, timeout_s=10.0)
    [task] = env.tasks
    assert task.answer["interactor"]["protocol"] == "kattis" and "checker" not in task.answer
    assert task.answer["public_tests"] == []  # a transcript only: no runnable sample
    right = env.verifier.verify(task, fence("python", GUESS_RIGHT))
    assert right.reward == 1.0, right.details
    linear = env.verifier.verify(
        task, fence("python", "for g in range(1, 101):\n    print(g, flush=True)\n    input()")
    )
    assert linear.reward == 0.0 and linear.reason is Reason.WRONG, linear.details


def test_the_default_validators_flags() -> None:
    assert default_checker([]) == {"type": "tokens", "case_sensitive": False}
    assert default_checker(["case_sensitive", "space_change_sensitive"])["case_sensitive"] is True
    spec = default_checker(["float_relative_tolerance", "1e-4"])
    assert spec["type"] == "float" and spec["rel_tol"] == 1e-4 and spec["abs_tol"] == 0.0
    both = default_checker(["float_tolerance", "1e-6"])
    assert both["abs_tol"] == both["rel_tol"] == 1e-6
    with pytest.raises(DataError):
        default_checker(["float_tolerance"])
    with pytest.raises(DataError):
        default_checker(["no_such_flag"])


def test_checker_specs_for_kattis_judges_are_checked() -> None:
    from rlvr_code.contests.checkers import CheckerSpecError, parse_checker
    from rlvr_code.contests.interactors import InteractorSpecError, parse_interactor

    loose = parse_checker({"type": "tokens", "case_sensitive": False})
    assert loose is not None and loose.compare("Hello WORLD!", "hello world!") == (True, None)
    strict = parse_checker({"type": "tokens"})
    assert strict is not None and strict.compare("Hello", "hello")[0] is False
    floats = parse_checker({"type": "float", "abs_tol": 1e-6, "case_sensitive": False})
    assert floats is not None and floats.compare("YES 0.5000001", "yes 0.5")[0] is True
    program = parse_checker({"type": "program", "source": "x", "protocol": "kattis"})
    assert program is not None and program.protocol == "kattis"
    for bad in ({"type": "tokens", "case_sensitive": "no"}, {"type": "program", "source": "x", "protocol": "icpc"}):
        with pytest.raises(CheckerSpecError):
            parse_checker(bad)
    assert parse_interactor({"source": "x", "protocol": "kattis"}).protocol == "kattis"
    with pytest.raises(InteractorSpecError):
        parse_interactor({"source": "x", "protocol": "domjudge"})


def test_a_test_file_linked_outside_its_package_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not the package's\n")
    package = sum_package(tmp_path / "sum")
    (package / "data/secret/group/2.ans").unlink()
    os.symlink(secret, package / "data/secret/group/2.ans")
    with pytest.raises(DataError, match="outside its package"):
        read_package(package)


def test_a_folder_without_packages_and_a_missing_path_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no problem package"):
        KattisEnv(tmp_path)
    with pytest.raises(DataError, match="not a folder"):
        KattisEnv(tmp_path / "absent")


def test_a_stated_memory_limit_bounds_the_solution(tmp_path: Path) -> None:
    # 300 MB held at once: within the verifier's own 1024 MB per process, past the package's 128 MiB.
    hog = "a, b = map(int, input().split())\nheld = bytearray(300 << 20)\nprint(a + b + held[-1])\n"
    loose = KattisEnv(sum_package(tmp_path / "loose"), timeout_s=10.0)
    assert "memory_limit_mb" not in loose.tasks[0].answer
    assert loose.verifier.verify(loose.tasks[0], fence("python", hog)).reward == 1.0
    package = sum_package(tmp_path / "tight")
    (package / "problem.yaml").write_text("name: Sum\nvalidation: custom\nlimits:\n  memory: 128\n")
    env = KattisEnv(package, timeout_s=10.0)
    [task] = env.tasks
    assert task.answer["memory_limit_mb"] == 128
    verdict = env.verifier.verify(task, fence("python", hog))
    assert verdict.reward == 0.0 and verdict.reason is Reason.RUNTIME_ERROR, verdict.details
    gold = env.gold_completion(task)
    assert gold is not None and env.verifier.verify(task, gold).reward == 1.0


def test_the_id_reads_data_or_the_fetched_copy_and_names_the_fetch_script_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RLVR_KATTIS_EXAMPLES", str(tmp_path / "not-fetched"))
    with pytest.raises(DataUnavailableError, match=FETCH_SCRIPT) as caught:
        rlvr_envs.make("code-kattis")
    assert "data=" in str(caught.value) and "RLVR_KATTIS_EXAMPLES" in str(caught.value)
    package = sum_package(tmp_path / "sum")
    for given in ({"data": str(package)}, {"path": package}, {"data": str(tmp_path)}):
        env = rlvr_envs.make("code-kattis-v4", **given)
        assert [t.id for t in env.tasks] == ["kattis/sum"], given
    monkeypatch.setenv("RLVR_KATTIS_EXAMPLES", str(tmp_path))  # a folder without `different`: not the copy
    assert missing_examples(fetched_dir()) is not None


# -- the real set: Kattis' example problem packages ------------------------------------------------


def examples_dir() -> Path:
    found = fetched_dir()
    why = missing_examples(found)
    if why is not None:
        pytest.skip(why)
    return found


@pytest.fixture(scope="module")
def real_env() -> KattisEnv:
    examples_dir()
    env = rlvr_envs.make("code-kattis-v4", language=LANGUAGES, timeout_s=10.0)  # the id's default: the copy
    assert isinstance(env, KattisEnv)
    return env


def submissions(kind: str) -> list[Any]:
    root = fetched_dir()
    reason = missing_examples(root)
    if reason is not None:
        return [pytest.param("", "", marks=pytest.mark.skip(reason=reason))]
    found = sorted(root.glob(f"*/submissions/{kind}/*"))
    return [pytest.param(p.parts[-4], str(p.relative_to(root))) for p in found if p.suffix in EXTENSIONS]


def test_the_real_packages_load_with_their_own_judges(real_env: KattisEnv) -> None:
    tasks = {t.id: t for t in real_env.tasks}
    assert sorted(tasks) == ["kattis/different", "kattis/guess", "kattis/hello", "kattis/oddecho"]
    assert real_env.skipped == []
    different, guess = tasks["kattis/different"].answer, tasks["kattis/guess"].answer
    assert different["checker"]["type"] == "program" and different["checker"]["language"] == "cpp"
    assert guess["interactor"]["protocol"] == "kattis" and len(guess["cases"]) == 10
    assert tasks["kattis/oddecho"].answer["public_tests"] == [0, 1]
    assert tasks["kattis/hello"].answer["checker"] == {"type": "tokens", "case_sensitive": False}
    # A reference in the task's first language (Python): guess ships C++ and Java ones only.
    assert [t.id for t in tasks.values() if real_env.gold_completion(t) is None] == ["kattis/guess"]
    cpp_first = KattisEnv(examples_dir(), language=["cpp", "python"])
    assert all(cpp_first.gold_completion(t) is not None for t in cpp_first.tasks)


def _verify(env: KattisEnv, package: str, path: str) -> Verdict:
    root = examples_dir()
    language = EXTENSIONS[Path(path).suffix]
    need(language)
    task = next(t for t in env.tasks if t.id == f"kattis/{package}")
    return env.verifier.verify(task, fence(language, (root / path).read_text()))


@pytest.mark.parametrize(("package", "path"), submissions("accepted"))
def test_every_accepted_submission_passes_public_and_hidden_cases(real_env: KattisEnv, package: str, path: str) -> None:
    verdict = _verify(real_env, package, path)
    if "py2" in path:
        assert verdict.reward == 0.0  # Python 2 (print statements): not Python 3
        return
    assert verdict.reward == 1.0, verdict.details
    public = verdict.details["public"]
    assert public["passed"] == public["total"]


@pytest.fixture(scope="module")
def short_env() -> KattisEnv:
    # 3 s for a sample: the deadlocked and looping submissions end there, not at 10 s.
    return KattisEnv(examples_dir(), language=LANGUAGES, timeout_s=3.0)


@pytest.mark.parametrize(
    ("package", "path"),
    submissions("wrong_answer")
    + submissions("run_time_error")
    + submissions("time_limit_exceeded")
    + submissions("partially_accepted"),
)
def test_every_rejected_submission_scores_zero(short_env: KattisEnv, package: str, path: str) -> None:
    verdict = _verify(short_env, package, path)
    assert verdict.reward == 0.0, verdict.details
    assert verdict.reason is not Reason.VERIFIER_ERROR, verdict.details
    if path.endswith("memory_limit.cc"):  # 512 MB allocated under the package's 512 MiB: fails at once
        assert verdict.reason is Reason.RUNTIME_ERROR, verdict.details


def test_the_default_validator_ignores_case_as_kattis_does(real_env: KattisEnv) -> None:
    hello = next(t for t in real_env.tasks if t.id == "kattis/hello")
    assert real_env.verifier.verify(hello, fence("python", "print('HELLO WORLD!')")).reward == 1.0
    assert real_env.verifier.verify(hello, fence("python", "print('Hello World')")).reward == 0.0


def test_calibrated_limits_on_the_real_set_stop_the_too_slow_submission() -> None:
    from rlvr_code.limits import CPU_LIMIT_KEY, calibrate

    env = KattisEnv(examples_dir(), language=["cpp", "python", "c"], timeout_s=10.0)
    need("cpp")
    result = calibrate(env, repeats=1)
    # Every package's C++ reference measured, the interactive one's CPU included.
    assert [row["source"] for row in result.rows] == ["calibrated"] * 4, result.rows
    assert all(CPU_LIMIT_KEY in task.answer for task in result.tasks), result.rows
    tasks = {task.id: task for task in result.tasks}
    for task in result.tasks:
        gold = env.gold_completion(task)
        assert gold is not None and env.verifier.verify(task, gold).reward == 1.0, task.id
    slow = (examples_dir() / "different/submissions/time_limit_exceeded/different_linear_search.cc").read_text()
    verdict = env.verifier.verify(tasks["kattis/different"], fence("cpp", slow))
    assert verdict.reward == 0.0 and verdict.reason is Reason.TIMEOUT, verdict.details
