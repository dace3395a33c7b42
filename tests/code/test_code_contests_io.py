"""File-I/O contest tasks (``answer["io"]``): the program reads input.txt and writes output.txt in
its working directory, in Python and C++, through the contest verifier (the languages runner).

Serial pass (``tests/conftest.py``): the runner's sample uids.
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_code.contests.verifier import ContestVerifier
from rlvr_envs.types import Reason, Task
from tests.code.contest_interactive_cases import FILE_CASES, FILE_IO, STDIO, fence, need
from tests.code.test_code_languages_hostile import leftovers

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

IO = {"input": "input.txt", "output": "output.txt"}


def task(language: str, io: object = IO, **answer: object) -> Task:
    return Task(
        id="sum",
        prompt="a+b",
        answer={"format": "stdio", "language": language, "cases": FILE_CASES, "io": io, **answer},
    )


@pytest.fixture(scope="module")
def verifier() -> ContestVerifier:
    return ContestVerifier(timeout_s=20.0, case_timeout_s=5.0)


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_a_file_io_program_passes_and_a_stdio_one_does_not(verifier: ContestVerifier, language: str) -> None:
    need(language)
    before = set(leftovers())
    right = verifier.verify(task(language), fence(language, FILE_IO[language]))
    assert right.reward == 1.0, right.details
    assert right.details["runner"] == "file_io" and right.details["language"] == language
    # The same sum on stdin/stdout: stdin is empty and stdout is not the answer.
    stdio = verifier.verify(task(language), fence(language, STDIO[language]))
    assert stdio.reward == 0.0 and stdio.reason in (Reason.WRONG, Reason.RUNTIME_ERROR), stdio.details
    assert sorted(set(leftovers()) - before) == []


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_one_side_a_file_the_other_a_standard_stream(verifier: ContestVerifier, language: str) -> None:
    need(language)
    if language == "python":
        reads_stdin = "a, b = map(int, input().split())\nopen('output.txt', 'w').write(str(a + b) + '\\n')\n"
        writes_stdout = "a, b = map(int, open('in.txt').read().split())\nprint(a + b)\n"
    else:
        reads_stdin = (
            '#include <cstdio>\nint main(){long a,b;std::scanf("%ld %ld",&a,&b);'
            'FILE*f=std::fopen("output.txt","w");std::fprintf(f,"%ld\\n",a+b);}'
        )
        writes_stdout = (
            '#include <cstdio>\nint main(){long a,b;FILE*f=std::fopen("in.txt","r");'
            'std::fscanf(f,"%ld %ld",&a,&b);std::printf("%ld\\n",a+b);}'
        )
    assert verifier.verify(task(language, io={"output": "output.txt"}), fence(language, reads_stdin)).reward == 1.0
    assert verifier.verify(task(language, io={"input": "in.txt"}), fence(language, writes_stdout)).reward == 1.0


def test_a_checker_judges_the_output_file(verifier: ContestVerifier) -> None:
    spaced = "a, b = map(int, open('input.txt').read().split())\nopen('output.txt', 'w').write(f'  {a + b}  ')\n"
    strict = verifier.verify(task("python", checker=None), fence("python", spaced))
    assert strict.reward == 0.0  # the family's line comparison keeps leading spaces
    tokens = verifier.verify(task("python", checker={"type": "tokens"}), fence("python", spaced))
    assert tokens.reward == 1.0, tokens.details
    wrong = "open('output.txt', 'w').write('41\\n')\n"
    assert verifier.verify(task("python", checker={"type": "tokens"}), fence("python", wrong)).reward == 0.0


HOSTILE = {
    # the output file past the cap (1 MiB of output): an error, nothing huge read back
    "flood the output file": "open('output.txt', 'w').write('3\\n' * (3 << 20))\n",
    # the rest of the working directory is read-only: no file of its own, no replacing the output file
    "write elsewhere in its directory": "import os\nopen('answer.txt', 'w').write('3\\n')\n",
    "replace the output file with a link": "import os\nos.remove('output.txt')\nos.symlink('/etc/passwd', 'output.txt')\n",
    # an earlier case's files are gone: writing the answer once and exiting later cases does not pass
    "remember an answer across cases": "import os\nif os.path.getsize('output.txt') == 0:\n"
    "    open('output.txt', 'w').write('3\\n')\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_io_programs_score_zero_and_leave_nothing(verifier: ContestVerifier, name: str) -> None:
    before = set(leftovers())
    verdict = verifier.verify(task("python"), fence("python", HOSTILE[name]))
    assert verdict.reward == 0.0, (name, verdict.details)
    assert verdict.reason not in (Reason.OK, Reason.VERIFIER_ERROR), verdict.details
    assert sorted(set(leftovers()) - before) == []


NOISY = {
    # The right output file, and 4 MB of debug output on stdout (past the 1 MiB output cap).
    "python": 'import sys\na, b = map(int, open("input.txt").read().split())\nsys.stdout.write("x" * (4 << 20))\n'
    'open("output.txt", "w").write(f"{a + b}\\n")\n',
    "cpp": '#include <cstdio>\nint main() { FILE* f = std::fopen("input.txt", "r"); long a, b;\n'
    '  std::fscanf(f, "%ld %ld", &a, &b); for (int i = 0; i < (4 << 20); i++) std::putchar(120);\n'
    '  FILE* g = std::fopen("output.txt", "w"); std::fprintf(g, "%ld\\n", a + b); }\n',
}


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_stdout_past_the_cap_is_discarded_where_the_answer_is_a_file(verifier: ContestVerifier, language: str) -> None:
    # The output judged is output.txt; stdout is ignored, so its size is no reason to fail the
    # sample (it was: "the output exceeded 1048576 bytes", a right answer scored 0).
    need(language)
    right = verifier.verify(task(language), fence(language, NOISY[language]))
    assert right.reward == 1.0, right.details
    # Where stdout is the answer (only the input is a file), the cap still applies.
    only_input = verifier.verify(task(language, io={"input": "input.txt"}), fence(language, NOISY[language]))
    assert only_input.reward == 0.0 and "exceeded" in str(only_input.details.get("first_error")), only_input.details


def test_an_endless_stdout_beside_the_file_ends_at_the_time_limit() -> None:
    endless = 'open("output.txt", "w").write("3\\n")\nwhile True:\n    print("x" * 4096)\n'
    verdict = ContestVerifier(timeout_s=4.0, case_timeout_s=2.0).verify(task("python"), fence("python", endless))
    assert verdict.reward == 0.0 and verdict.reason is Reason.TIMEOUT, verdict.details


@pytest.mark.parametrize(
    "io",
    [
        {"input": "../input.txt"},
        {"input": "/etc/passwd"},
        {"input": ".hidden"},
        {"input": "a.txt", "output": "a.txt"},
        {"input": "input.txt", "stderr": "err.txt"},
        {"input": 5},
        "input.txt",
        ["input.txt"],
    ],
)
def test_a_malformed_io_field_is_a_bad_task_never_a_reward(verifier: ContestVerifier, io: object) -> None:
    verdict = verifier.verify(task("python", io=io), fence("python", FILE_IO["python"]))
    assert verdict.reason is Reason.VERIFIER_ERROR and "bad task" in verdict.details["error"], verdict.details


def test_a_completion_without_code_is_judged_without_running(verifier: ContestVerifier) -> None:
    assert verifier.verify(task("python"), "").reason is Reason.NO_ANSWER
    assert verifier.verify(task("cpp"), fence("python", "print(1)")).reason is Reason.FORMAT_ERROR


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("Read n from input.txt and write the answer to output.txt.", IO),
        ("The input file is INPUT.TXT.", {"input": "input.txt"}),
        ("Print the answer (to output.txt)", {"output": "output.txt"}),
        ("Read from standard input. Use myinput.txt locally or input.txt_old.", None),
        ("dir/input.txt is not a name in the working directory", None),
        ("", None),
    ],
)
def test_a_statement_that_names_the_files_makes_a_file_io_task(statement: str, expected: object) -> None:
    from rlvr_code.contests.rows import stated_file_io

    assert stated_file_io(statement) == expected


def _file_io_row() -> dict[str, object]:
    from tests.code.contest_fixtures import codecontests_rows

    row = codecontests_rows()[0]
    solution = FILE_IO["python"]
    return {
        **row,
        "input_file": "input.txt",
        "output_file": "output.txt",
        "solutions": {"language": [3], "solution": [solution]},
    }


def test_codecontests_input_file_columns_make_a_file_io_task_on_v2_only(verifier: ContestVerifier) -> None:
    import warnings

    import rlvr_envs

    env = rlvr_envs.make("code-contests-v5", data=[_file_io_row()], timeout_s=20)
    task = env.tasks[0]
    assert task.answer["io"] == IO
    assert "the file input.txt" in task.prompt and "standard input" not in task.prompt
    gold = env.gold_completion(task)
    assert gold is not None
    assert env.verify(task, gold).reward == 1.0
    assert env.verify(task, fence("python", STDIO["python"])).reward == 0.0
    # Empty columns (the set's stdio problems) are standard streams, whatever the statement says.
    plain = rlvr_envs.make("code-contests-v5", data=[{**_file_io_row(), "input_file": "", "output_file": ""}])
    assert "io" not in plain.tasks[0].answer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v1 = rlvr_envs.make("code-contests-v1", data=[_file_io_row()])
    assert "io" not in v1.tasks[0].answer


def test_a_bad_input_file_column_fails_make_naming_the_row() -> None:
    import rlvr_envs
    from rlvr_envs.errors import DataError

    with pytest.raises(DataError, match="input_file"):
        rlvr_envs.make("code-contests-v5", data=[{**_file_io_row(), "input_file": "../../etc/passwd"}])


def test_a_taco_statement_naming_the_files_makes_a_file_io_task() -> None:
    import json

    import rlvr_envs

    row = {
        "question": "Read two integers from input.txt and write their sum to output.txt.",
        "input_output": json.dumps({"inputs": ["1 2\n"], "outputs": ["3\n"]}),
        "solutions": json.dumps([FILE_IO["python"]]),
        "starter_code": "",
        "difficulty": "EASY",
    }
    env = rlvr_envs.make("code-taco-v5", data=[row])
    assert env.tasks[0].answer["io"] == IO
    assert env.verify(env.tasks[0], env.gold_completion(env.tasks[0]) or "").reward == 1.0
