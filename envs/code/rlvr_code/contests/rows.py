"""From a contest set's row to the family's task schema: the pieces every set shares.

A problem becomes a ``stdio`` task (``cases``, public ones declared by index in
``public_tests``, ``case_timeout_s`` when the set states a limit (with ``case_time_factors``, its
multiple per language), ``checker`` when its statement
states a float tolerance) or, when the set calls a function (TACO's and APPS' ``fn_name``,
LiveCodeBench's ``functional`` tests), an ``asserts`` task whose asserts call it with the test's
arguments.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rlvr_code.contests.checkers import CheckerSpecError, english_tolerances, parse_checker, stated_tolerances
from rlvr_code.contests.input_rules import RULE_OUTPUT, output_rule
from rlvr_code.contests.verifier import CASE_LIMIT_KEY, FACTORS_KEY
from rlvr_code.envs import NOTHING_PASSES, RowPlace, expects_no_output
from rlvr_code.scoring import GUESS_CASES, guessable_cases, one_output
from rlvr_code.split import solution_names
from rlvr_code.verifier import accepted_languages
from rlvr_envs.errors import DataError
from rlvr_envs.types import Difficulty, Task


class Untestable(DataError):
    """A set's row that holds no test at all (APPS and TACO have a few): the preset leaves it out
    and says so (``ContestEnv.skipped``), where a broken row fails ``make``."""


def untestable(place: RowPlace, message: str) -> Untestable:
    return Untestable(f"{place.source} row {place.row_number}: {message}")


STDIO_INSTRUCTION = "Read the input from standard input and write the answer to standard output."
# A statement that names the files (Codeforces' file-I/O problems: "input.txt", "output.txt").
_FILE_NAMED = re.compile(r"(?<![\w./-])(input|output)\.txt(?![\w/-])", re.IGNORECASE)
_MAX_DECODED = 1 << 30
"""Bytes a compressed test-case field may expand to (LiveCodeBench's largest are tens of MB)."""

SAME_SETUP = """def _contest_same(got, want, unwrap):
    def plain(value):
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value
    got = plain(got)
    if got == want:
        return True
    return unwrap and isinstance(want, list) and len(want) == 1 and got == want[0]
"""
"""The asserts' comparison: a tuple answers a list; with ``unwrap`` (APPS, TACO) the expected value
may also be wrapped in a one-item list, as those sets' own checker accepts."""


@dataclass
class Problem:
    """A contest problem in the set-neutral form the task is built from."""

    id: str
    statement: str
    inputs: list[str]
    outputs: list[str]
    public_count: int = 0
    """How many of the cases, from the first, are the statement's examples (None: found by ``split``)."""
    declared_public: bool = True
    fn_name: str | None = None
    call_args: list[list[Any]] = field(default_factory=list)
    call_expected: list[Any] = field(default_factory=list)
    unwrap: bool = False
    starter_code: str = ""
    solution: str | None = None
    time_limit_s: float | None = None
    difficulty: str | int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] | None = None
    """The files the set says the program reads and writes (``{"input": "input.txt"}``; ``{}``:
    standard streams); None where the set does not say (then the statement is read)."""
    interactor: dict[str, Any] | None = None
    """The interactor spec of an interactive problem (``interactors``), which the set ships."""


def json_field(place: RowPlace, row: Mapping[str, Any], name: str, *, required: bool = True) -> Any:
    """A column holding JSON text (or already decoded); None when absent and not required."""
    value = place.need(row, name) if required else place.optional(row, name)
    if value is None or not isinstance(value, (str, bytes)):
        return value
    if not value.strip():
        return None
    try:
        return json.loads(value)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise place.error(f"the {name} column {place.column(name)!r} is not valid JSON: {exc}") from None


class _TextOnly(pickle.Unpickler):
    """Unpickles plain data only: a pickle that names any class or function is refused (a set's
    file must never run code here)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a data file")


def compressed_json(place: RowPlace, value: Any, name: str) -> Any:
    """LiveCodeBench's ``private_test_cases``: JSON text, or base64 of zlib of a pickled JSON string."""
    if not isinstance(value, str):
        return value
    if value.lstrip().startswith(("[", "{")):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise place.error(f"the {name} column is not valid JSON: {exc}") from None
    try:
        packed = base64.b64decode(value.encode("ascii"), validate=False)
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, _MAX_DECODED)
        if inflater.unconsumed_tail:
            raise place.error(f"the {name} column expands past {_MAX_DECODED >> 20} MB")
        text = _TextOnly(io.BytesIO(raw)).load()
        return json.loads(text) if isinstance(text, (str, bytes)) else text
    except (binascii.Error, zlib.error, pickle.UnpicklingError, EOFError, ValueError, UnicodeError) as exc:
        raise place.error(f"the {name} column is neither JSON nor base64(zlib(pickle(JSON))): {exc}") from None


def case_text(value: Any) -> str:
    """One input or output as text: a list of lines (APPS, TACO) is joined by newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n".join(case_text(v) for v in value) + "\n"
    return str(value)


def _literal(value: Any) -> str:
    text = repr(value)
    if "inf" in text or "nan" in text:
        # repr(float('inf')) is not a literal; JSON never holds one, but a decoded pickle might.
        return f"__import__('json').loads({json.dumps(value)!r})"
    return text


def call_tests(problem: Problem, place: RowPlace) -> tuple[list[str], list[str]]:
    """``(asserts, solution names)`` for a problem that calls ``fn_name`` (a ``class Solution``
    method when the starter code defines that class, else a function)."""
    name = str(problem.fn_name or "")
    if not name.isidentifier():
        raise place.error(f"fn_name {name!r} is not a Python name")
    is_method = "class Solution" in problem.starter_code
    call = f"Solution().{name}" if is_method else name
    tests = [
        f"assert _contest_same({call}(*{_literal(args)}), {_literal(want)}, {problem.unwrap})"
        for args, want in zip(problem.call_args, problem.call_expected)
    ]
    return tests, ["Solution" if is_method else name]


def stated_file_io(statement: str) -> dict[str, str] | None:
    """The files a statement says the program reads or writes (``{"input": "input.txt"}``...), or
    None when it names neither (standard input and output)."""
    sides = {found.group(1).lower() for found in _FILE_NAMED.finditer(statement)}
    return {side: f"{side}.txt" for side in ("input", "output") if side in sides} or None


def _instruction(io: Mapping[str, str] | None) -> str:
    if not io:
        return STDIO_INSTRUCTION
    source = f"the file {io['input']}" if io.get("input") else "standard input"
    target = f"the file {io['output']}" if io.get("output") else "standard output"
    return f"Read the input from {source} and write the answer to {target}."


def _prompt(problem: Problem, io: Mapping[str, str] | None = None) -> str:
    statement = problem.statement.rstrip()
    if problem.fn_name:
        starter = problem.starter_code.rstrip()
        code = f"\n\n```python\n{starter}\n```" if starter else ""
        return f"{statement}{code}\n\nWrite the function `{problem.fn_name}` in Python."
    if problem.starter_code.strip():
        return f"{statement}\n\n```python\n{problem.starter_code.rstrip()}\n```\n\n{_instruction(io)}"
    return f"{statement}\n\n{_instruction(io)}"


def build_task(
    problem: Problem,
    place: RowPlace,
    *,
    language: str | list[str] = "python",
    checker: Any = "auto",
    time_factors: Mapping[str, float] | None = None,
    file_io: bool = False,
) -> Task:
    """The task of a problem. ``checker="auto"``: a float checker at the tolerance the statement
    states, else exact tokens; ``None``: the family's line comparison; or a checker spec.
    ``time_factors``: the stated limit's multiple per language (``limits.STATED_LIMIT_FACTORS``),
    stored for the task's accepted languages as ``case_time_factors``; None: the limit as stated.
    ``file_io``: a stdio problem whose statement names input.txt/output.txt reads/writes them
    (``answer["io"]``, ``io_tasks``)."""
    metadata = {**problem.metadata, "language": language}
    if problem.time_limit_s is not None:
        # Not ``time_limit_s``: ``limits.calibrate`` would take that for the whole sample's limit.
        metadata["case_time_limit_s"] = problem.time_limit_s
    if problem.difficulty is not None:
        metadata["difficulty"] = problem.difficulty
    answer: dict[str, Any]
    io = None
    if problem.fn_name:
        if not problem.call_args:
            raise untestable(place, "the problem has no tests")
        tests, names = call_tests(problem, place)
        answer = {"format": "asserts", "tests": tests, "setup": SAME_SETUP, "solution_names": names}
        if problem.public_count:
            answer["public_tests"] = list(range(problem.public_count))
        metadata["language"] = "python"  # a call into the program: Python only
    else:
        if not problem.inputs:
            raise untestable(place, "the problem has no tests")
        cases = [{"input": i, "output": o} for i, o in zip(problem.inputs, problem.outputs)]
        answer = {"format": "stdio", "cases": cases, "language": language}
        io = None
        if file_io:
            io = (problem.files or None) if problem.files is not None else stated_file_io(problem.statement)
        if io is not None:
            answer["io"] = io
        if problem.declared_public:
            answer["public_tests"] = list(range(problem.public_count))
        spec = None if problem.interactor is not None else _checker_for(problem.statement, checker)
        if problem.interactor is not None:
            answer["interactor"] = dict(problem.interactor)  # it judges: no checker beside it
        if spec is not None:
            try:
                parse_checker(spec)
            except CheckerSpecError as exc:
                raise place.error(f"checker: {exc}") from None
            answer["checker"] = spec
        if expects_no_output(answer):
            raise untestable(place, NOTHING_PASSES)
        if problem.time_limit_s is not None:
            answer[CASE_LIMIT_KEY] = problem.time_limit_s
            if time_factors is not None:
                accepted = accepted_languages(language)
                answer[FACTORS_KEY] = {name: float(time_factors.get(name, 1.0)) for name in accepted}
    if problem.solution:
        answer["canonical_solution"] = problem.solution
        if problem.fn_name and "class Solution" not in problem.starter_code:
            answer["solution_names"] = solution_names(problem.solution) or answer["solution_names"]
    label = problem.difficulty
    task = Task(
        id=problem.id,
        prompt=_prompt(problem, io),
        answer=answer,
        metadata=metadata,
        difficulty=Difficulty(label=label) if isinstance(label, (str, int, float)) else Difficulty(),
    )
    shape = one_output(task)
    if shape is not None and shape[1] >= 2:
        raise untestable(place, ONE_OUTPUT)
    if guessable_cases(task):
        raise untestable(place, TWO_ANSWERS)
    rule = output_rule(task)
    if rule is not None and rule[1] >= 2:
        raise untestable(place, f"{RULE_OUTPUT} ({rule[0]})")
    if rule is not None:
        # One hidden case: some rule of ~30 fits one output by chance; kept as one answer is
        # (``ONE_OUTPUT_KEY``), and said in the metadata so a curriculum can drop it.
        task.metadata[RULE_OUTPUT_KEY] = rule[0]
    if shape is not None:
        # One hidden test: nothing tells a program from one printing its answer blindly. Kept
        # (Kattis' hello is such a problem), and said in the metadata so a curriculum can drop it.
        task.metadata[ONE_OUTPUT_KEY] = True
    return task


ONE_OUTPUT = "every hidden test expects the same answer: a program answering it whatever its input would pass"
ONE_OUTPUT_KEY = "one_hidden_answer"
RULE_OUTPUT_KEY = "hidden_rule"
TWO_ANSWERS = (
    f"fewer than {GUESS_CASES} hidden tests, each expecting one of the same two answers: a program "
    "guessing between them (and printing the statement's examples from a table) would pass 1 time in 32 or more"
)


AUTO_CHECKERS = ("auto", "auto-v4", "auto-english")
"""``checker="auto"``: the tolerance a statement states in any language (``stated_tolerances``,
the contest ``-v5`` ids); ``"auto-v4"``: as round 14 read it (``-v4``: no precision words, a story's
tolerance read as a bound); ``"auto-english"``: in English only (round 13's reading, ``-v3``)."""


def _checker_for(statement: str, checker: Any) -> Any:
    if not isinstance(checker, str) or checker not in AUTO_CHECKERS:
        return checker
    if checker == "auto-english":
        tolerances = english_tolerances(statement)
    else:
        tolerances = stated_tolerances(statement, "v4" if checker == "auto-v4" else "v5")
    if tolerances is not None:
        return {"type": "float", "abs_tol": tolerances[0], "rel_tol": tolerances[1]}
    return {"type": "tokens"}


def pairs(place: RowPlace, value: Any, name: str) -> tuple[list[str], list[str]]:
    """CodeContests' ``{"input": [...], "output": [...]}`` as two lists of equal length."""
    if value is None:
        return [], []
    if not isinstance(value, Mapping):
        raise place.error(f"the {name} column must be an object with 'input' and 'output' lists")
    given: Any = value.get("input")
    expected: Any = value.get("output")
    given = given.tolist() if hasattr(given, "tolist") else given
    expected = expected.tolist() if hasattr(expected, "tolist") else expected
    if not isinstance(given, Sequence) or not isinstance(expected, Sequence) or isinstance(given, str):
        raise place.error(f"the {name} column must hold 'input' and 'output' lists")
    if len(given) != len(expected):
        raise place.error(f"the {name} column has {len(given)} inputs but {len(expected)} outputs")
    return [case_text(g) for g in given], [case_text(e) for e in expected]


def require(condition: bool, place: RowPlace, message: str) -> None:
    if not condition:
        raise place.error(message)


__all__ = [
    "DataError",
    "Problem",
    "Untestable",
    "build_task",
    "call_tests",
    "case_text",
    "compressed_json",
    "json_field",
    "pairs",
    "untestable",
]
