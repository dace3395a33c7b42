"""Dataset environments: user data (``math``) and the presets AIME, MATH-500 and GSM8K."""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from rlvr_envs import DatasetEnv, Difficulty, Task
from rlvr_envs.checks import verifier_from_options
from rlvr_envs.data import numbered_records, require_fields
from rlvr_envs.errors import DataError, DataRequiredError
from rlvr_math.data import Record, SourcedRow, load_preset
from rlvr_math.verifier import MathVerifier


class MathDatasetEnv(DatasetEnv):
    """Base of the math dataset envs: tasks whose answer is a final math answer."""

    family = "math"
    default_prompt_format = "plain"

    def __init__(self, *, verifier: MathVerifier | None = None, **kwargs: Any) -> None:
        # limit= (and every other Env option) is the base class's: it keeps the first tasks after
        # the presets' own filters (years=, levels=, subjects=).
        super().__init__(verifier_from_options(MathVerifier, kwargs, env_cls=type(self), verifier=verifier), **kwargs)

    def answer_text(self, task: Task) -> str:
        return str(task.answer)


class MathEnv(MathDatasetEnv):
    """Your own problems: ``make("math", data=...)``.

    Args:
        data: a JSONL/JSON/Parquet/CSV path, a list of dicts, or a ``datasets.Dataset``.
        problem_key, answer_key: the columns holding the problem text and the final answer.
        id_key: a column of unique ids (default: the row number).
        difficulty_key: a column whose value becomes ``Difficulty.label`` (e.g. ``level``).
        metadata_keys: columns copied into task metadata; ``public_metadata`` lists those
            safe to show the policy in ``reset()`` info.
        split: the split to use when ``data`` is a ``DatasetDict``.
        limit: keep the first ``limit`` tasks.
    """

    def __init__(
        self,
        data: Any = None,
        *,
        problem_key: str = "problem",
        answer_key: str = "answer",
        id_key: str | None = None,
        difficulty_key: str | None = None,
        metadata_keys: Sequence[str] = (),
        public_metadata: Sequence[str] = (),
        split: str | None = None,
        **kwargs: Any,
    ) -> None:
        if data is None:
            raise DataRequiredError(
                "make('math') needs your data: data= a .jsonl/.json/.parquet/.csv path, a list of dicts "
                "or a datasets.Dataset (for ready-made sets use math-aime, math-500 or math-gsm8k)"
            )
        super().__init__(**kwargs)
        self.problem_key, self.answer_key, self.id_key = problem_key, answer_key, id_key
        self.difficulty_key = difficulty_key
        self.metadata_keys = tuple(metadata_keys)
        self.public_metadata_keys = tuple(public_metadata)  # type: ignore[misc]
        self._source = str(data) if isinstance(data, (str, Path)) else "data"
        self._records = numbered_records(data, split)
        self._tasks  # noqa: B018 -- load now, so bad data fails at make() time

    def _load_tasks(self) -> list[Task]:
        tasks = []
        columns = {"prompt": self.problem_key, "answer": self.answer_key}
        for index, (number, row) in enumerate(self._records):
            # A missing or null prompt or answer is never stringified into 'None' (which would
            # then be the answer that earns the reward). ``number`` is the row's line in its file.
            fields = require_fields(
                row, columns, source=self._source, row_number=number, mapping_hint="problem_key=/answer_key="
            )
            answer = fields["answer"]
            if self.id_key is not None:
                identity = require_fields(
                    row, {"id": self.id_key}, source=self._source, row_number=number, mapping_hint="id_key="
                )["id"]
            label = row.get(self.difficulty_key) if self.difficulty_key else None
            tasks.append(
                Task(
                    id=str(identity) if self.id_key else str(index),
                    prompt=str(fields["prompt"]),
                    answer=answer if isinstance(answer, (int, str)) else str(answer),
                    metadata={k: row.get(k) for k in self.metadata_keys if k in row},
                    difficulty=Difficulty(label=label if isinstance(label, (str, int, float)) else None),
                )
            )
        return tasks


class _PresetEnv(MathDatasetEnv):
    """A well-known set loaded from the Hub, or from ``data=`` (alias ``path=``) / ``data_files=``.

    ``problem_key=`` / ``answer_key=`` name the columns when a file uses other names than the
    preset's (hendrycks MATH keeps its worked solution, with the boxed answer, in ``solution``).
    A row whose prompt or answer is missing or null fails at ``make`` with its source, row number
    and column.
    """

    hub_sources: ClassVar[list[tuple[str, str | None, str]]] = []
    preset_name: ClassVar[str] = ""
    prompt_columns: ClassVar[tuple[str, ...]] = ("problem", "question")
    answer_columns: ClassVar[tuple[str, ...]] = ("answer",)

    def __init__(
        self,
        *,
        data: Any = None,
        path: str | Path | None = None,
        data_files: Any = None,
        split: str | None = None,
        problem_key: str | None = None,
        answer_key: str | None = None,
        **kwargs: Any,
    ) -> None:
        if data is not None and path is not None:
            raise TypeError(f"{self.preset_name}: pass data= or its alias path=, not both")
        super().__init__(**kwargs)
        self.data = data if data is not None else path
        self.path, self.data_files = self.data, data_files
        self.problem_key, self.answer_key = problem_key, answer_key
        self._sourced = load_preset(
            self.preset_name, data=self.data, data_files=data_files, hub=self.hub_sources, split=split
        )
        self._tasks  # noqa: B018 -- load now, so a missing source or a bad row fails at make() time

    def _load_tasks(self) -> list[Task]:
        return [self._row_task(i, sourced) for i, sourced in enumerate(self._sourced)]

    def _row_task(self, index: int, sourced: SourcedRow) -> Task:
        source, number, row = sourced
        if not isinstance(row, dict):
            raise DataError(f"{self.preset_name}: {source} row {number}: expected an object, got {type(row).__name__}")
        prompt_column = self.problem_key or self._column(row, self.prompt_columns, "prompt", source, number)
        answer_column = self.answer_key or self._column(row, self.answer_columns, "answer", source, number)
        fields = require_fields(
            row,
            {"prompt": prompt_column, "answer": answer_column},
            source=f"{self.preset_name}: {source}",
            row_number=number,
            mapping_hint="problem_key=/answer_key=",
        )
        return self.task_from_record(index, row, source, str(fields["prompt"]), fields["answer"])

    def _column(self, row: Record, candidates: tuple[str, ...], role: str, source: str, number: int) -> str:
        """The first of the preset's known column names for ``role`` that the row has."""
        found = next((c for c in candidates if c in row), None)
        if found is None:
            looked = " or ".join(repr(c) for c in candidates)
            option = "problem_key=" if role == "prompt" else "answer_key="
            raise DataError(
                f"{self.preset_name}: {source} row {number}: no column {looked} for the {role} "
                f"(columns: {sorted(str(k) for k in row)[:20]}); map your own column with {option} "
                "(problem_key=/answer_key=)"
            )
        return found

    @abstractmethod
    def task_from_record(self, index: int, row: Record, source: str, prompt: str, answer: Any) -> Task:
        """Turn one source row (its prompt and answer already checked) into a Task."""


def _first(row: Record, *keys: str) -> Any:
    return next((row[k] for k in keys if row.get(k) not in (None, "")), None)


class AimeEnv(_PresetEnv):
    """AIME 2024 and 2025 (60 problems; integer answers 0-999). Year and part are metadata."""

    preset_name = "math-aime"
    hub_sources: ClassVar[list[tuple[str, str | None, str]]] = [
        ("HuggingFaceH4/aime_2024", None, "train"),
        ("MathArena/aime_2025", None, "train"),
    ]
    public_metadata_keys = ("year", "part", "problem_number")

    def __init__(self, *, years: Sequence[int] | None = None, **kwargs: Any) -> None:
        self.years = tuple(int(y) for y in years) if years is not None else None
        super().__init__(**kwargs)

    def _load_tasks(self) -> list[Task]:
        tasks = super()._load_tasks()
        if self.years is not None:
            tasks = [t for t in tasks if t.metadata.get("year") in self.years]
        return tasks

    answer_columns = ("answer", "Answer")

    def task_from_record(self, index: int, row: Record, source: str, prompt: str, answer: Any) -> Task:
        answer = str(answer).strip()
        if re.fullmatch(r"\d+", answer):
            answer = str(int(answer))
        contest = str(_first(row, "contest") or "")
        url = str(_first(row, "url") or "")
        year_text = str(_first(row, "year") or "") or _search(r"(20\d\d)", contest + " " + url + " " + source)
        year = int(year_text) if year_text and year_text.isdigit() else None
        number_raw = _search(r"Problem_(\d+)", url) or _first(row, "problem_number", "problem_idx")
        number = int(number_raw) if str(number_raw).isdigit() else index + 1
        part = _search(r"AIME\s*(?:20\d\d\s*)?(II|I)\b", contest) or _search(r"AIME_(II|I)_", url)
        if not part and "aime_2025" in source.lower() and number > 15:
            part, number = "II", number - 15  # MathArena numbers 2025 I and II as 1-30
        elif not part and "aime_2025" in source.lower():
            part = "I"
        label = f"AIME {year or ''} {part}".replace("  ", " ").strip()
        return Task(
            id=f"{year}-{part or 'x'}-{number}",
            prompt=prompt,
            answer=answer,
            metadata={"year": year, "part": part or None, "problem_number": number, "contest": label},
            difficulty=Difficulty(label=label, config={"year": year, "part": part or None, "problem_number": number}),
        )


def _search(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    return match.group(1) if match else ""


class Math500Env(_PresetEnv):
    """MATH-500 (Lightman et al.'s test subset of MATH). Level and subject are the difficulty."""

    preset_name = "math-500"
    hub_sources: ClassVar[list[tuple[str, str | None, str]]] = [("HuggingFaceH4/MATH-500", None, "test")]
    public_metadata_keys = ("subject", "level")

    def __init__(self, *, levels: Sequence[int] | None = None, subjects: Sequence[str] | None = None, **kw: Any):
        self.levels = tuple(int(v) for v in levels) if levels is not None else None
        self.subjects = tuple(subjects) if subjects is not None else None
        super().__init__(**kw)

    def _load_tasks(self) -> list[Task]:
        tasks = super()._load_tasks()
        if self.levels is not None:
            tasks = [t for t in tasks if t.metadata.get("level") in self.levels]
        if self.subjects is not None:
            tasks = [t for t in tasks if t.metadata.get("subject") in self.subjects]
        return tasks

    def task_from_record(self, index: int, row: Record, source: str, prompt: str, answer: Any) -> Task:
        level_raw = str(_first(row, "level") or "")
        level = int(m.group(0)) if (m := re.search(r"\d", level_raw)) else None
        subject = str(_first(row, "subject", "type") or "") or None
        return Task(
            id=str(_first(row, "unique_id") or index),
            prompt=prompt,
            answer=str(answer).strip(),
            metadata={"subject": subject, "level": level, "unique_id": _first(row, "unique_id")},
            difficulty=Difficulty(label=level, config={"subject": subject, "level": level}),
        )


class Gsm8kEnv(_PresetEnv):
    """GSM8K test (1,319 grade-school word problems); the answer is the number after ``####``."""

    preset_name = "math-gsm8k"
    hub_sources: ClassVar[list[tuple[str, str | None, str]]] = [("openai/gsm8k", "main", "test")]

    answer_columns = ("answer", "answer_raw")

    def task_from_record(self, index: int, row: Record, source: str, prompt: str, answer: Any) -> Task:
        final = str(answer).rsplit("####", 1)[-1].strip().replace(",", "")
        if not final:
            raise DataError(f"{self.preset_name}: {source}: the answer of row {index + 1} has nothing after '####'")
        return Task(
            id=f"test-{_first(row, 'index') if _first(row, 'index') is not None else index}",
            prompt=prompt,
            answer=final,
        )
