"""Dataset environments: user data (``math``) and the presets AIME, MATH-500 and GSM8K."""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from rlvr_envs import DatasetEnv, Difficulty, Task
from rlvr_math.data import DataUnavailableError, Record, load_preset, records_from
from rlvr_math.verifier import MathVerifier

_VERIFIER_OPTIONS = ("rel_tol", "methods", "fallback", "ordered_lists", "strict", "allow_set_relation_comp")


def _make_verifier(verifier: MathVerifier | None, options: dict[str, Any]) -> MathVerifier:
    chosen = {k: options.pop(k) for k in _VERIFIER_OPTIONS if k in options}
    if verifier is not None:
        if chosen:
            raise TypeError(f"pass either verifier= or the verifier options {sorted(chosen)}, not both")
        return verifier
    return MathVerifier(**chosen)


class MathDatasetEnv(DatasetEnv):
    """Base of the math dataset envs: tasks whose answer is a final math answer."""

    family = "math"
    default_prompt_format = "plain"

    def __init__(self, *, verifier: MathVerifier | None = None, limit: int | None = None, **kwargs: Any) -> None:
        super().__init__(_make_verifier(verifier, kwargs), **kwargs)
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be positive, got {limit}")
        self.limit = limit

    def answer_text(self, task: Task) -> str:
        return str(task.answer)

    def _finish(self, tasks: list[Task]) -> list[Task]:
        seen: set[str] = set()
        for task in tasks:
            if task.id in seen:
                raise DataUnavailableError(f"{self.env_id}: duplicate task id {task.id!r}; pass id_key=")
            seen.add(task.id)
        return tasks[: self.limit] if self.limit is not None else tasks


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
            raise TypeError(
                "make('math') needs your data: data= a .jsonl/.json/.parquet/.csv path, a list of dicts "
                "or a datasets.Dataset (for ready-made sets use math-aime, math-500 or math-gsm8k)"
            )
        super().__init__(**kwargs)
        self.problem_key, self.answer_key, self.id_key = problem_key, answer_key, id_key
        self.difficulty_key = difficulty_key
        self.metadata_keys = tuple(metadata_keys)
        self.public_metadata_keys = tuple(public_metadata)  # type: ignore[misc]
        self._records = records_from(data, split)
        self._tasks  # noqa: B018 -- load now, so bad data fails at make() time

    def _load_tasks(self) -> list[Task]:
        tasks = []
        for index, row in enumerate(self._records):
            missing = [k for k in (self.problem_key, self.answer_key) if k not in row]
            if missing:
                raise DataUnavailableError(
                    f"row {index} has no column {missing[0]!r} (columns: {sorted(row)}); "
                    f"set problem_key=/answer_key= to your column names"
                )
            answer = row[self.answer_key]
            if answer is None or str(answer).strip() == "":
                raise DataUnavailableError(f"row {index} has an empty answer")
            label = row.get(self.difficulty_key) if self.difficulty_key else None
            tasks.append(
                Task(
                    id=str(row[self.id_key]) if self.id_key else str(index),
                    prompt=str(row[self.problem_key]),
                    answer=answer if isinstance(answer, (int, str)) else str(answer),
                    metadata={k: row.get(k) for k in self.metadata_keys if k in row},
                    difficulty=Difficulty(label=label if isinstance(label, (str, int, float)) else None),
                )
            )
        return self._finish(tasks)


class _PresetEnv(MathDatasetEnv):
    """A well-known set loaded from the Hub, or from ``path=`` / ``data_files=`` offline."""

    hub_sources: ClassVar[list[tuple[str, str | None, str]]] = []
    preset_name: ClassVar[str] = ""

    def __init__(self, *, path: str | Path | None = None, data_files: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.path, self.data_files = path, data_files
        self._sourced = load_preset(self.preset_name, path=path, data_files=data_files, hub=self.hub_sources)
        self._tasks  # noqa: B018 -- load now, so a missing source fails at make() time

    def _load_tasks(self) -> list[Task]:
        return self._finish([self.task_from_record(i, row, source) for i, (source, row) in enumerate(self._sourced)])

    @abstractmethod
    def task_from_record(self, index: int, row: Record, source: str) -> Task:
        """Turn one source row into a Task (each preset knows its columns)."""


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

    def task_from_record(self, index: int, row: Record, source: str) -> Task:
        answer = str(_first(row, "answer", "Answer")).strip()
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
            prompt=str(_first(row, "problem", "question")),
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

    def task_from_record(self, index: int, row: Record, source: str) -> Task:
        level_raw = str(_first(row, "level") or "")
        level = int(m.group(0)) if (m := re.search(r"\d", level_raw)) else None
        subject = str(_first(row, "subject", "type") or "") or None
        return Task(
            id=str(_first(row, "unique_id") or index),
            prompt=str(_first(row, "problem")),
            answer=str(_first(row, "answer")).strip(),
            metadata={"subject": subject, "level": level, "unique_id": _first(row, "unique_id")},
            difficulty=Difficulty(label=level, config={"subject": subject, "level": level}),
        )


class Gsm8kEnv(_PresetEnv):
    """GSM8K test (1,319 grade-school word problems); the answer is the number after ``####``."""

    preset_name = "math-gsm8k"
    hub_sources: ClassVar[list[tuple[str, str | None, str]]] = [("openai/gsm8k", "main", "test")]

    def task_from_record(self, index: int, row: Record, source: str) -> Task:
        raw = str(_first(row, "answer", "answer_raw"))
        final = raw.rsplit("####", 1)[-1].strip().replace(",", "")
        return Task(
            id=f"test-{_first(row, 'index') if _first(row, 'index') is not None else index}",
            prompt=str(_first(row, "problem", "question")),
            answer=final,
        )
