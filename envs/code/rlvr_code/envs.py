"""Code environments: ``code-python`` (your own data), ``code-humaneval`` and ``code-mbpp``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rlvr_code.verifier import CodeVerifier, solution_names
from rlvr_envs.env import DatasetEnv
from rlvr_envs.formats import PROMPT_FORMATS, PromptFormat, register_format
from rlvr_envs.types import Difficulty, Task

CODE_FORMAT = PromptFormat(
    name="code",
    system_prompt=None,
    instruction="Write your solution in Python inside one ```python code block.",
    answer_template="```python\n{answer}\n```",
    format_pattern=r".*```(?:python|py|python3)?[ \t]*\n.*?```.*",
)
if "code" not in PROMPT_FORMATS:
    register_format(CODE_FORMAT)

_VERIFIER_OPTIONS = (
    "timeout_s",
    "case_timeout_s",
    "memory_mb",
    "processes",
    "file_mb",
    "open_files",
    "output_bytes",
    "partial_credit",
    "backend",
    "allow_reduced_isolation",
    "workers",
    "backend_options",
)


def _read_rows(source: Any) -> list[dict[str, Any]]:
    """Rows from a JSONL/JSON/Parquet path, a list of dicts, or a ``datasets.Dataset``."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"code data file {path} does not exist")
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq  # lazily: only Parquet users need it

            return pq.read_table(path).to_pylist()
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
            return list(data if isinstance(data, list) else data.get("data", []))
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(source, Iterable):
        return [dict(row) for row in source]
    raise TypeError(f"cannot read code tasks from {type(source).__name__}")


def humaneval_task(row: dict[str, Any]) -> Task:
    prompt = row["prompt"]
    return Task(
        id=str(row["task_id"]),
        prompt=f"Complete the following Python function.\n\n```python\n{prompt}```",
        answer={
            "format": "humaneval",
            "context": prompt,
            "test": row["test"],
            "entry_point": row["entry_point"],
            "canonical_solution": prompt + row["canonical_solution"],
        },
        metadata={"source": "humaneval", "entry_point": row["entry_point"]},
    )


def mbpp_task(row: dict[str, Any]) -> Task:
    tests = list(row["test_list"])
    shown = tests[0] if tests else ""
    return Task(
        id=f"mbpp/{row['task_id']}",
        prompt=f"{row['text']}\nYour code should pass this test:\n\n{shown}",
        answer={
            "format": "asserts",
            "tests": tests,
            "setup": row.get("test_setup_code") or "",
            "canonical_solution": row["code"],
            "solution_names": solution_names(row["code"]),
        },
        metadata={"source": "mbpp", "split": row.get("split")},
    )


def stdio_task(row: dict[str, Any], index: int) -> Task:
    inputs, outputs = row["inputs"], row["outputs"]
    if len(inputs) != len(outputs):
        raise ValueError(f"row {index}: {len(inputs)} inputs but {len(outputs)} outputs")
    answer: dict[str, Any] = {
        "format": "stdio",
        "cases": [{"input": i, "output": o} for i, o in zip(inputs, outputs)],
    }
    for key in ("language", "timeout_s"):
        if row.get(key) is not None:
            answer[key] = row[key]
    if row.get("code") or row.get("canonical_solution"):
        answer["canonical_solution"] = row.get("canonical_solution") or row["code"]
    return Task(
        id=str(row.get("id", row.get("task_id", f"stdio/{index}"))),
        prompt=str(row.get("prompt") or row.get("question") or "Write a program that reads standard input."),
        answer=answer,
        metadata={k: row[k] for k in ("source", "difficulty") if k in row},
        difficulty=Difficulty(label=row.get("difficulty")) if row.get("difficulty") is not None else Difficulty(),
    )


def task_from_row(row: dict[str, Any], index: int) -> Task:
    """Accept native rows ({id, prompt, answer}) and HumanEval, MBPP and stdin/stdout layouts."""
    if isinstance(row.get("answer"), dict) and "format" in row["answer"]:
        return Task(
            id=str(row.get("id", index)),
            prompt=str(row["prompt"]),
            answer=row["answer"],
            metadata=dict(row.get("metadata") or {}),
        )
    if "entry_point" in row and "test" in row:
        return humaneval_task(row)
    if "test_list" in row:
        return mbpp_task(row)
    if "inputs" in row and "outputs" in row:
        return stdio_task(row, index)
    raise ValueError(
        f"row {index} is not a code task: expected {{id, prompt, answer: {{format, ...}}}} or HumanEval, "
        f"MBPP or stdin/stdout fields; got keys {sorted(row)}"
    )


class CodeEnv(DatasetEnv):
    """Python programming tasks verified by running unit tests in a sandbox.

    Args:
        data: a path (JSONL, JSON, Parquet), a list of dicts or a ``datasets.Dataset``.
        limit: keep only the first ``limit`` tasks.
        verifier: a ready ``CodeVerifier``; otherwise one is built from the options below.
        timeout_s, partial_credit, backend, allow_reduced_isolation, memory_mb, ...: see
            ``CodeVerifier``.
        Other keyword arguments go to ``rlvr_envs.Env`` (``prompt_format``, ``isolation``, ...).
    """

    family: ClassVar[str] = "code"
    default_prompt_format: ClassVar[str] = "code"
    public_metadata_keys: ClassVar[tuple[str, ...]] = ("source", "split", "entry_point")

    def __init__(
        self, data: Any = None, *, limit: int | None = None, verifier: CodeVerifier | None = None, **kwargs: Any
    ) -> None:
        options = {k: kwargs.pop(k) for k in _VERIFIER_OPTIONS if k in kwargs}
        if verifier is None:
            verifier = CodeVerifier(**options)
        elif options:
            raise TypeError(f"pass either verifier or verifier options, not both ({sorted(options)})")
        super().__init__(verifier, **kwargs)
        self.data = data
        self.limit = limit

    def _rows(self) -> list[dict[str, Any]]:
        if self.data is None:
            raise ValueError("code-python needs your tasks: make('code-python', data='tasks.jsonl' or a list of dicts)")
        return _read_rows(self.data)

    def _load_tasks(self) -> Sequence[Task]:
        rows = self._rows()
        if self.limit is not None:
            rows = rows[: self.limit]
        return [task_from_row(row, i) for i, row in enumerate(rows)]

    # -- completions the conformance kit and the demo use ------------------------------------------
    def answer_text(self, task: Task) -> str | None:
        answer = task.answer if isinstance(task.answer, dict) else {}
        code = answer.get("canonical_solution")
        return str(code) if code else None

    def gold_completion(self, task: Task) -> str | None:
        code = self.answer_text(task)
        if code is None:
            return None
        if self.prompt_format.name == "code":
            return self.prompt_format.render_answer(code.rstrip("\n"))
        return self.prompt_format.render_answer(f"```python\n{code.rstrip()}\n```")

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        # A program has no "list of candidate answers" to hide the gold in; the hostile tests
        # cover the code-specific ways of hedging (catch-all __eq__, early exit, markers).
        return None

    def feedback(self, task: Task, verdict: Any) -> str:
        details = verdict.details if isinstance(verdict.details, dict) else {}
        first = details.get("first_error") or verdict.reason.value
        return (
            f"Your program did not pass the tests ({details.get('passed', 0)}/{details.get('total', '?')} "
            f"passed). First problem: {first}\nFix the program and answer again."
        )


def _hub_rows(name: str, config: str | None, splits: Sequence[str]) -> list[dict[str, Any]]:
    try:
        import datasets  # lazily: heavy, and only presets without a local path need it
    except ImportError as exc:
        raise ImportError("loading from the Hugging Face Hub needs `pip install datasets` (or pass path=...)") from exc
    rows: list[dict[str, Any]] = []
    try:
        for split in splits:
            ds = datasets.load_dataset(name, config, split=split)
            rows.extend({**row, "split": split} for row in ds)
    except Exception as exc:  # offline, missing, renamed: say how to use a local copy instead
        raise RuntimeError(
            f"could not load {name!r} from the Hugging Face Hub ({type(exc).__name__}: {exc}); "
            f"pass path='/path/to/file.jsonl' to use a local copy"
        ) from exc
    return rows


class HumanEvalEnv(CodeEnv):
    """HumanEval (164 problems): complete a function; ``check(candidate)`` decides."""

    hub_name = "openai/openai_humaneval"

    def __init__(self, path: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(data=path, **kwargs)

    def _rows(self) -> list[dict[str, Any]]:
        if self.data is not None:
            return _read_rows(self.data)
        return _hub_rows(self.hub_name, None, ["test"])


class MbppEnv(CodeEnv):
    """MBPP (974 problems in splits prompt/train/validation/test); code, then setup, then asserts.

    Args:
        path: a local copy (JSONL with MBPP's fields); otherwise the Hub.
        split: ``"all"`` (default), ``"train"``, ``"test"``, ``"validation"`` or ``"prompt"``.
    """

    hub_name = "google-research-datasets/mbpp"
    splits = ("prompt", "train", "validation", "test")

    def __init__(self, path: str | Path | None = None, split: str = "all", **kwargs: Any) -> None:
        if split != "all" and split not in self.splits:
            raise ValueError(f"unknown MBPP split {split!r}; choose 'all' or one of {self.splits}")
        super().__init__(data=path, **kwargs)
        self.split = split

    def _rows(self) -> list[dict[str, Any]]:
        wanted = self.splits if self.split == "all" else (self.split,)
        if self.data is not None:
            rows = _read_rows(self.data)
            if self.split != "all":
                rows = [r for r in rows if r.get("split") == self.split]
            return rows
        rows = _hub_rows(self.hub_name, "full", wanted)
        return sorted(rows, key=lambda r: int(r["task_id"]))
