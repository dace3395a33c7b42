"""Code environments: ``code-python`` (your own data), ``code-humaneval`` and ``code-mbpp``.

Rows come through the core loader (``rlvr_envs.data``: files, lists of dicts, ``datasets``
objects, the Hub) and are checked when the env is made. A row whose prompt, tests or expected
outputs are missing, null or empty raises ``DataError`` naming the source, the row and the
column, and the option that maps a column of another name (``columns=``, ``prompt_key=``,
``id_key=``): a prompt of ``None`` used to become the text ``"None"``, a null stdin case the input
``"None"``, and an empty test list a task that every program passes.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rlvr_code.contests.verifier import ContestVerifier
from rlvr_code.derived import MODES, NO_LOCAL_SANDBOX, derivable, local_sandbox_missing, needs_hidden
from rlvr_code.split import solution_names, split_tests
from rlvr_code.verifier import FORMATS, CodeVerifier
from rlvr_envs.checks import TaskIds, verifier_from_options
from rlvr_envs.data import is_missing, load_hub, numbered_records, require_fields
from rlvr_envs.env import DatasetEnv
from rlvr_envs.errors import ConfigurationError, DataError, DataRequiredError
from rlvr_envs.formats import PromptFormat
from rlvr_envs.types import Difficulty, Task

CODE_FORMAT = PromptFormat(
    name="code",
    system_prompt=None,
    instruction="Write your solution in Python inside one ```python code block.",
    answer_template="```python\n{answer}\n```",
    format_pattern=r".*```(?:python|py|python3)?[ \t]*\n.*?```.*",
)

SourcedRow = tuple[str, int, Any]
"""A row, the source it came from (a file, ``data`` or a Hub dataset id) and its 1-based number there."""


@dataclass(frozen=True)
class RowPlace:
    """Where a row came from, and the user's names for the layout's columns, for error messages.

    ``columns`` maps a layout field (``prompt``, ``test``, ``test_list``, ``inputs``, ``id``...) to
    the column that holds it in the user's rows.
    """

    source: str = "data"
    row_number: int = 1
    columns: Mapping[str, str] = field(default_factory=dict)

    def column(self, name: str) -> str:
        return self.columns.get(name, name)

    def has(self, row: Mapping[str, Any], name: str) -> bool:
        return self.column(name) in row

    def error(self, message: str) -> DataError:
        return DataError(f"{self.source} row {self.row_number}: {message}")

    def need(self, row: Mapping[str, Any], name: str) -> Any:
        """The value of a required field: present, not null, not blank."""
        column = self.column(name)
        hint = f"columns={{{name!r}: 'your column'}}"
        return require_fields(row, {name: column}, source=self.source, row_number=self.row_number, mapping_hint=hint)[
            name
        ]

    def optional(self, row: Mapping[str, Any], name: str) -> Any:
        value = row.get(self.column(name))
        return None if is_missing(value) else value

    def text(self, row: Mapping[str, Any], name: str) -> str:
        value = self.need(row, name)
        if not isinstance(value, str):
            raise self.error(f"the {name} column {self.column(name)!r} must be text, got {type(value).__name__}")
        return value

    def items(self, row: Mapping[str, Any], name: str, *, blank_ok: bool) -> list[str]:
        """A required, non-empty list of strings (a JSON list in a CSV cell is read as one)."""
        column = self.column(name)
        value = self.need(row, name)
        if isinstance(value, str) and value.lstrip().startswith("["):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                pass
        if hasattr(value, "tolist") and not isinstance(value, str):
            value = value.tolist()  # a numpy array from pandas or a Parquet reader
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
            raise self.error(f"the {name} column {column!r} must be a list, got {type(value).__name__}")
        if not value:
            raise self.error(f"the {name} column {column!r} is an empty list")
        out: list[str] = []
        for position, item in enumerate(value, start=1):
            if item is None or (not blank_ok and is_missing(item)):
                shown = "null" if item is None else "empty"
                raise self.error(f"item {position} of the {name} column {column!r} is {shown}")
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.error(
                    f"item {position} of the {name} column {column!r} must be text, got {type(item).__name__}"
                )
            out.append(item if isinstance(item, str) else str(item))
        return out

    def identity(self, row: Mapping[str, Any], candidates: Sequence[str], default: str) -> str:
        """The row's id: the mapped ``id`` column (required), else the first id column present."""
        if "id" in self.columns:
            return str(self.need(row, "id"))
        for name in candidates:
            value = row.get(name)
            if not is_missing(value):
                return str(value)
        return default


def _place(place: RowPlace | None) -> RowPlace:
    return place if place is not None else RowPlace()


def humaneval_task(row: Mapping[str, Any], place: RowPlace | None = None, *, preset: bool = True) -> Task:
    """A HumanEval row (``task_id, prompt, test, entry_point, canonical_solution``) as a task.

    ``preset=True`` (HumanEval itself) also requires ``task_id`` and ``canonical_solution``; your
    own rows in this layout may leave the solution out (then there is no gold completion).
    """
    place = _place(place)
    prompt = place.text(row, "prompt")
    test = place.text(row, "test")
    entry_point = place.text(row, "entry_point").strip()
    if not entry_point.isidentifier():
        raise place.error(
            f"the entry_point column {place.column('entry_point')!r} is not a Python name: {entry_point!r}"
        )
    solution = place.text(row, "canonical_solution") if preset else place.optional(row, "canonical_solution")
    if preset:
        task_id = str(place.need(row, "id" if "id" in place.columns else "task_id"))
    else:
        task_id = place.identity(row, ("task_id", "id"), str(place.row_number - 1))
    answer: dict[str, Any] = {"format": "humaneval", "context": prompt, "test": test, "entry_point": entry_point}
    if solution is not None:
        answer["canonical_solution"] = prompt + str(solution)
    return Task(
        id=task_id,
        prompt=f"Complete the following Python function.\n\n```python\n{prompt}```",
        answer=answer,
        metadata={"source": "humaneval", "entry_point": entry_point},
    )


def mbpp_task(row: Mapping[str, Any], place: RowPlace | None = None, *, preset: bool = True) -> Task:
    """An MBPP row (``task_id, text, test_list, code``, optional ``test_setup_code``) as a task.

    The description is ``text`` (MBPP "full") or ``prompt`` (MBPP "sanitized", whose
    ``test_imports`` join the setup). ``preset=True`` also requires ``task_id`` and ``code``.
    """
    place = _place(place)
    if "text" not in place.columns and "text" not in row and "prompt" in row:
        place = RowPlace(place.source, place.row_number, {**place.columns, "text": "prompt"})
    text = place.text(row, "text")
    tests = place.items(row, "test_list", blank_ok=False)
    code = place.text(row, "code") if preset else place.optional(row, "code")
    setup = str(place.optional(row, "test_setup_code") or "")
    raw_imports = place.optional(row, "test_imports")
    if raw_imports is not None and not (hasattr(raw_imports, "__len__") and len(raw_imports) == 0):
        imports = place.items(row, "test_imports", blank_ok=False)
        setup = "\n".join([*imports, setup]) if setup else "\n".join(imports)
    if preset:
        task_id = f"mbpp/{place.need(row, 'id' if 'id' in place.columns else 'task_id')}"
    else:
        number = place.optional(row, "task_id")
        task_id = f"mbpp/{number}" if number is not None else place.identity(row, ("id",), str(place.row_number - 1))
    answer: dict[str, Any] = {"format": "asserts", "tests": tests, "setup": setup}
    if code is not None:
        answer["canonical_solution"] = str(code)
        answer["solution_names"] = solution_names(str(code))
    return Task(
        id=task_id,
        prompt=f"{text}\nYour code should pass this test:\n\n{tests[0]}",
        answer=answer,
        metadata={"source": "mbpp", "split": row.get("split")},
    )


def stdio_task(row: Mapping[str, Any], index: int, place: RowPlace | None = None) -> Task:
    """A row of stdin/stdout cases (``prompt`` or ``question``, ``inputs``, ``outputs``) as a task.

    An input or an expected output may be the empty string, never null; a row without a problem
    statement is refused rather than given a generic one.
    """
    place = _place(place)
    if "prompt" not in place.columns and "prompt" not in row and "question" in row:
        place = RowPlace(place.source, place.row_number, {**place.columns, "prompt": "question"})
    prompt = place.text(row, "prompt")
    inputs = place.items(row, "inputs", blank_ok=True)
    outputs = place.items(row, "outputs", blank_ok=True)
    if len(inputs) != len(outputs):
        raise place.error(
            f"{len(inputs)} inputs (column {place.column('inputs')!r}) but {len(outputs)} outputs "
            f"(column {place.column('outputs')!r})"
        )
    answer: dict[str, Any] = {"format": "stdio", "cases": [{"input": i, "output": o} for i, o in zip(inputs, outputs)]}
    for key in ("language", "timeout_s", "case_timeout_s", "checker"):
        if row.get(key) is not None:
            answer[key] = row[key]
    _check_checker(answer, place)
    solution = place.optional(row, "canonical_solution") or place.optional(row, "code")
    if solution is not None:
        answer["canonical_solution"] = str(solution)
    label = row.get("difficulty")
    return Task(
        id=place.identity(row, ("id", "task_id"), f"stdio/{index}"),
        prompt=prompt,
        answer=answer,
        metadata={k: row[k] for k in ("source", "difficulty") if k in row},
        difficulty=Difficulty(label=label) if isinstance(label, (str, int, float)) else Difficulty(),
    )


def _check_checker(answer: Mapping[str, Any], place: RowPlace) -> None:
    """A stdio task's checker (``rlvr_code.contests.checkers``), checked at load; and that the
    task can tell a program from nothing (``expects_no_output``)."""
    from rlvr_code.contests.checkers import CheckerSpecError, parse_checker

    try:
        parse_checker(answer.get("checker"))
    except CheckerSpecError as exc:
        raise place.error(f"checker: {exc}") from None
    if expects_no_output(answer):
        raise place.error(NOTHING_PASSES)


NOTHING_PASSES = (
    "every case expects no output and no special judge or interactor reads it: a program doing nothing would pass"
)


def expects_no_output(answer: Mapping[str, Any]) -> bool:
    """Whether a program doing nothing passes the stdio task: every case's expected output is
    blank, and nothing but the comparison judges it (no ``program`` checker reading the input, no
    interactor). Under the line, token and float comparisons alike an empty program, ``pass`` or
    ``exit(0)`` would score 1 (an interactive problem shipped without its interactor, a broken row)."""
    checker = answer.get("checker")
    if answer.get("interactor") is not None or (isinstance(checker, Mapping) and checker.get("type") == "program"):
        return False
    cases = answer.get("cases")
    if not isinstance(cases, list) or not cases:
        return False
    return all(isinstance(c, Mapping) and isinstance(c.get("output"), str) and not c["output"].strip() for c in cases)


def _check_native_answer(answer: Mapping[str, Any], place: RowPlace) -> None:
    """The fields each task format needs, checked at load (the verifier would call them verifier errors)."""
    kind = answer.get("format")
    column = place.column("answer")
    if kind not in FORMATS:
        raise place.error(f"the answer column {column!r} has format {kind!r}; expected one of {list(FORMATS)}")

    def missing(key: str, what: str) -> DataError:
        return place.error(f"the answer column {column!r} ({kind}) needs {key!r}, {what}")

    if kind == "humaneval":
        for key in ("test", "entry_point"):
            if is_missing(answer.get(key)) or not isinstance(answer.get(key), str):
                raise missing(key, "a non-empty string")
    elif kind == "asserts":
        tests = answer.get("tests")
        if not isinstance(tests, list) or not tests or any(not isinstance(t, str) or is_missing(t) for t in tests):
            raise missing("tests", "a non-empty list of assert statements")
    else:
        cases = answer.get("cases")
        if not isinstance(cases, list) or not cases:
            raise missing("cases", "a non-empty list of {'input', 'output'}")
        for position, case in enumerate(cases, start=1):
            if not isinstance(case, Mapping) or case.get("input") is None or case.get("output") is None:
                raise missing("cases", f"a list of {{'input', 'output'}} strings (case {position} is {case!r:.80})")
        _check_checker(answer, place)


def native_task(row: Mapping[str, Any], index: int, place: RowPlace | None = None) -> Task:
    """A row already in the task schema: ``{id, prompt, answer: {format, ...}, metadata?}``."""
    place = _place(place)
    prompt = place.text(row, "prompt")
    answer = place.need(row, "answer")
    if not isinstance(answer, Mapping):
        raise place.error(f"the answer column {place.column('answer')!r} must be an object with a 'format'")
    _check_native_answer(answer, place)
    metadata = row.get("metadata")
    return Task(
        id=place.identity(row, ("id",), str(index)),
        prompt=prompt,
        answer=dict(answer),
        metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
    )


def task_from_row(row: Any, index: int, place: RowPlace | None = None) -> Task:
    """Accept native rows ({id, prompt, answer}) and HumanEval, MBPP and stdin/stdout layouts.

    ``index`` is the row's 0-based position (the id of a row that has none); ``place`` says where
    the row came from for error messages (default: ``data`` row ``index + 1``).
    """
    place = place if place is not None else RowPlace(row_number=index + 1)
    if not isinstance(row, Mapping):
        raise place.error(f"expected an object with columns, got {type(row).__name__}")
    answer = row.get(place.column("answer"))
    if isinstance(answer, Mapping) and "format" in answer:
        return native_task(row, index, place)
    # One column of a layout picks it, so a row missing another of its columns is told which.
    if place.has(row, "entry_point") or place.has(row, "test"):
        return humaneval_task(row, place, preset=False)
    if place.has(row, "test_list") or place.has(row, "text"):
        return mbpp_task(row, place, preset=False)
    if place.has(row, "inputs") or place.has(row, "outputs"):
        return stdio_task(row, index, place)
    if place.has(row, "answer"):
        raise place.error(
            f"the answer column {place.column('answer')!r} must be an object with a 'format' "
            f"(one of {list(FORMATS)}), got {answer!r:.80}"
        )
    raise place.error(
        "not a code task: expected {id, prompt, answer: {format, ...}} or HumanEval (prompt, test, entry_point), "
        f"MBPP (text, test_list) or stdin/stdout (prompt, inputs, outputs) columns; got columns "
        f"{sorted(str(k) for k in row)[:20]}; map your own with columns={{'test_list': 'your column', ...}}"
    )


def _columns(columns: Mapping[str, str] | None, prompt_key: str | None, id_key: str | None) -> dict[str, str]:
    if columns is not None and not isinstance(columns, Mapping):
        raise ConfigurationError(f"columns= must map a field name to your column name, got {type(columns).__name__}")
    out = dict(columns or {})
    for name, value in (("prompt", prompt_key), ("id", id_key)):
        if value is not None:
            if name in out and out[name] != value:
                raise ConfigurationError(f"{name}_key={value!r} and columns={{{name!r}: {out[name]!r}}} disagree")
            out[name] = value
    bad = {k: v for k, v in out.items() if not isinstance(k, str) or not isinstance(v, str)}
    if bad:
        raise ConfigurationError(f"columns= must map field names to column names (strings), got {bad}")
    return out


def _data_or_path(env_name: str, data: Any, path: Any) -> Any:
    if data is not None and path is not None:
        raise TypeError(f"{env_name}: pass data= or its alias path=, not both")
    return data if data is not None else path


def _is_dataset_dict(data: Any) -> bool:
    return hasattr(data, "column_names") and hasattr(data, "keys") and callable(data.keys)


def _hub_hint(env_name: str, file_name: str) -> str:
    return (
        f"make({env_name!r}, data='/path/to/{file_name}') (JSONL, JSON, Parquet or CSV, a list of dicts "
        "or a datasets.Dataset; path= works too)"
    )


class CodeEnv(DatasetEnv):
    """Python programming tasks verified by running unit tests in a sandbox.

    The rows are read and checked when the env is made, so a missing file, an unreachable Hub
    or a bad row fails at ``make``.

    Args:
        data: a path (JSONL, JSON, Parquet, CSV), a list of dicts or a ``datasets.Dataset``; rows
            in the task schema or in HumanEval, MBPP or stdin/stdout layout.
        split: the split of a ``datasets.DatasetDict``.
        limit: keep only the first ``limit`` tasks.
        columns: your column names for the layouts' fields, e.g. ``{"prompt": "question",
            "test_list": "tests"}``; ``prompt_key=`` and ``id_key=`` are short for two of them.
        verifier: a ready ``CodeVerifier``; otherwise one is built from the options below.
        timeout_s, partial_credit, backend, allow_reduced_isolation, memory_mb, ...: see
            ``CodeVerifier``.
        Other keyword arguments go to ``rlvr_envs.Env`` (``prompt_format``, ``isolation``, ...).
    """

    family: ClassVar[str] = "code"
    default_prompt_format: ClassVar[str] = "code"
    # The class owns its format (make(id, prompt_format="code")); nothing is added to the global table.
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = {CODE_FORMAT.name: CODE_FORMAT}
    public_metadata_keys: ClassVar[tuple[str, ...]] = ("source", "split", "entry_point")
    env_name: ClassVar[str] = "code-python"
    # Tasks without a checker or a per-case limit are verified exactly as by CodeVerifier.
    verifier_class: ClassVar[type[CodeVerifier]] = ContestVerifier

    def __init__(
        self,
        data: Any = None,
        *,
        split: str | None = None,
        limit: int | None = None,
        columns: Mapping[str, str] | None = None,
        prompt_key: str | None = None,
        id_key: str | None = None,
        verifier: CodeVerifier | None = None,
        **kwargs: Any,
    ) -> None:
        verifier = verifier_from_options(self.verifier_class, kwargs, env_cls=type(self), verifier=verifier)
        super().__init__(verifier, limit=limit, **kwargs)
        self.data = data
        self.split = split
        self.columns = _columns(columns, prompt_key, id_key)
        rows = self._sourced_rows()
        if self.limit is not None:
            rows = rows[: self.limit]
        self._loaded = self._build(rows)
        self._tasks  # noqa: B018 -- an empty source fails at make() too

    # -- rows ----------------------------------------------------------------------------------
    def _sourced_rows(self) -> list[SourcedRow]:
        if self.data is None:
            raise DataRequiredError(
                f"{self.env_name} needs your tasks: pass data= a .jsonl/.json/.parquet/.csv path, a list of dicts "
                "or a datasets.Dataset (for ready-made sets use code-humaneval or code-mbpp)"
            )
        return self._user_rows(self.split)

    def _user_rows(self, split: str | None) -> list[SourcedRow]:
        source = str(self.data) if isinstance(self.data, (str, Path)) else "data"
        return [(source, number, row) for number, row in numbered_records(self.data, split)]

    def _row_task(self, index: int, place: RowPlace, row: Any) -> Task | None:
        """The row's task; None leaves the row out (a preset's rows that hold no test at all)."""
        return task_from_row(row, index, place)

    def _build(self, rows: list[SourcedRow]) -> list[Task]:
        tasks: list[Task] = []
        ids = TaskIds()  # before DatasetEnv's own check, to name the rows
        self.skipped: list[str] = []
        """Rows left out, each with why: no test at all (contest sets), or every test shown in the
        prompt with no hidden one derivable (``rlvr_code.derived``; the verifier would refuse them)."""
        mode = getattr(self.verifier, "hidden_tests", "as_given")
        derive = mode in MODES
        for index, (source, number, row) in enumerate(rows):
            place = RowPlace(source, number, self.columns)
            if not isinstance(row, Mapping):
                raise place.error(f"expected an object with columns, got {type(row).__name__}")
            task = self._row_task(index, place, row)
            if task is None:
                continue
            why = derivable(task, mode) if derive else None
            if why is None and derive and needs_hidden(task) and local_sandbox_missing():
                why = NO_LOCAL_SANDBOX  # the Docker backend's host: the verifier would refuse them
            if why is not None:
                self.skipped.append(f"{source} row {number} ({task.id}): {why}")
                continue
            ids.add(task.id, f"{source} row {number}")
            tasks.append(task)
        if self.skipped and type(self)._build is CodeEnv._build:  # a contest set warns itself, once
            warnings.warn(
                f"{self.env_name}: left out {len(self.skipped)} rows (env.skipped), e.g. {self.skipped[0]}",
                stacklevel=4,
            )
        return tasks

    def _load_tasks(self) -> Sequence[Task]:
        return self._loaded

    # -- completions the conformance kit and the demo use ------------------------------------------
    def answer_text(self, task: Task) -> str | None:
        answer = task.answer if isinstance(task.answer, dict) else {}
        code = answer.get("canonical_solution")
        return str(code) if code else None

    def gold_completion(self, task: Task) -> str | None:
        code = self.answer_text(task)
        if code is None:
            return None
        language = task.answer.get("language", "python") if isinstance(task.answer, dict) else "python"
        if isinstance(language, list):
            language = language[0] if language else "python"
        if str(language).lower() not in ("python", "python3", "py"):
            # The fence names the language (the verifier routes by it); "code"'s template says python.
            block = f"```{language}\n{code.rstrip()}\n```"
            return block if self.prompt_format.name == "code" else self.prompt_format.render_answer(block)
        if self.prompt_format.name == "code":
            return self.prompt_format.render_answer(code.rstrip("\n"))
        return self.prompt_format.render_answer(f"```python\n{code.rstrip()}\n```")

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        # A program has no "list of candidate answers" to hide the gold in; the hostile tests
        # cover the code-specific ways of hedging (catch-all __eq__, early exit, markers).
        return None

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self._attempt: str | None = action  # the feedback runs the public tests on it (``feedback``)
        try:
            return super().step(action)
        finally:
            self._attempt = None

    def feedback(self, task: Task, verdict: Any) -> str:
        """Public tests in full, from a run of them alone; hidden tests as counts and the first
        failure's kind (``rlvr_code.feedback``). The reward stays the verdict's, on all tests."""
        from rlvr_code.feedback import attempt_feedback
        from rlvr_code.verifier import TaskFormatError, build_job, extract_code

        public = None
        attempt = getattr(self, "_attempt", None)
        if attempt is not None and isinstance(self.verifier, CodeVerifier) and split_tests(task)[0]:
            public = self.verifier.run_public(task, attempt)
        program = None
        if attempt is not None:
            try:
                program = build_job(task.answer, extract_code(attempt))["program"]  # as the sandbox ran it
            except (TaskFormatError, KeyError):
                program = None
        return attempt_feedback(verdict, public, program, task_format=task.answer.get("format"))


class HumanEvalEnv(CodeEnv):
    """HumanEval (164 problems): complete a function; ``check(candidate)`` decides.

    Args:
        data: a local copy (alias ``path=``): JSONL/JSON/Parquet/CSV, rows or a ``datasets``
            object with HumanEval's columns; without it, ``openai/openai_humaneval`` from the Hub.
    """

    env_name: ClassVar[str] = "code-humaneval"
    hub_name: ClassVar[str] = "openai/openai_humaneval"

    def __init__(self, data: Any = None, *, path: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(_data_or_path(self.env_name, data, path), **kwargs)

    @property
    def path(self) -> Any:
        return self.data

    def _sourced_rows(self) -> list[SourcedRow]:
        if self.data is not None:
            return self._user_rows(self.split)
        hint = _hub_hint(self.env_name, "HumanEval.jsonl")
        rows = load_hub(self.hub_name, split=self.split or "test", env_name=self.env_name, option_hint=hint)
        return [(self.hub_name, number, row) for number, row in enumerate(rows, start=1)]

    def _row_task(self, index: int, place: RowPlace, row: Any) -> Task | None:
        return humaneval_task(row, place, preset=True)


class MbppEnv(CodeEnv):
    """MBPP (974 problems in splits prompt/train/validation/test; ``-v6`` loads 973, see ``skipped``).

    Args:
        data: a local copy (alias ``path=``) with MBPP's columns; without it the Hub's
            ``google-research-datasets/mbpp`` (config ``full``).
        split: ``"all"`` (default), ``"train"``, ``"test"``, ``"validation"`` or ``"prompt"``; a
            local copy is filtered on its ``split`` column (a ``DatasetDict`` by its splits).
    """

    env_name: ClassVar[str] = "code-mbpp"
    hub_name: ClassVar[str] = "google-research-datasets/mbpp"
    splits: ClassVar[tuple[str, ...]] = ("prompt", "train", "validation", "test")

    def __init__(self, data: Any = None, *, path: str | Path | None = None, split: str = "all", **kwargs: Any) -> None:
        if split != "all" and split not in self.splits:
            raise ConfigurationError(f"unknown MBPP split {split!r}; choose 'all' or one of {self.splits}")
        super().__init__(_data_or_path(self.env_name, data, path), split=split, **kwargs)

    @property
    def path(self) -> Any:
        return self.data

    def _sourced_rows(self) -> list[SourcedRow]:
        split = self.split or "all"
        wanted = self.splits if split == "all" else (split,)
        if self.data is not None and _is_dataset_dict(self.data):
            available = [s for s in wanted if s in self.data.keys()]
            if not available:
                raise DataError(f"{self.env_name}: the DatasetDict has splits {list(self.data.keys())}, not {wanted}")
            return [
                (f"data[{s}]", number, {**row, "split": s})
                for s in available
                for number, row in numbered_records(self.data, s)
            ]
        if self.data is not None:
            rows = self._user_rows(None)
            if split == "all":
                return rows
            if not any(isinstance(r, Mapping) and "split" in r for _, _, r in rows):
                raise DataError(
                    f"{self.env_name}: split={split!r} picks rows by their 'split' column, which the rows of "
                    f"{rows[0][0] if rows else 'data'} lack; pass split='all' (default) or a file of that split"
                )
            return [(s, n, r) for s, n, r in rows if isinstance(r, Mapping) and r.get("split") == split]
        hint = _hub_hint(self.env_name, "mbpp.jsonl")
        out: list[SourcedRow] = []
        for name in wanted:
            rows_of_split = load_hub(self.hub_name, "full", split=name, env_name=self.env_name, option_hint=hint)
            out.extend((f"{self.hub_name}[{name}]", n, {**r, "split": name}) for n, r in enumerate(rows_of_split, 1))
        return sorted(out, key=lambda sourced: int(sourced[2].get("task_id") or 0))

    def _row_task(self, index: int, place: RowPlace, row: Any) -> Task | None:
        return mbpp_task(row, place, preset=True)
