"""Lean environments: ``lean`` (your data), ``lean-minif2f`` (valid/test), ``lean-workbook``."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rlvr_envs import DatasetEnv, Difficulty, Task, Verdict
from rlvr_envs.chat_markers import forged_turn_verdict
from rlvr_envs.checks import verifier_from_options
from rlvr_envs.data import load_hub, numbered_records, require_fields
from rlvr_envs.env import guard_completion
from rlvr_envs.errors import DataError, DataRequiredError, DataUnavailableError
from rlvr_envs.formats import PromptFormat
from rlvr_lean.formats import LEAN4_FORMAT, OWN_FORMATS
from rlvr_lean.policy import LeanPolicy
from rlvr_lean.reference import parse_reference
from rlvr_lean.shape import TaskFormatError, parse_statement
from rlvr_lean.verifier import LeanVerifier

DEFAULT_HEADER = (
    "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
)
"""The header of the DeepSeek-Prover / Goedel-Prover / Kimina-Prover statement sets."""

PROMPT_STATEMENT = (
    "Complete the following Lean 4 proof. Give the complete theorem with its proof in one ```lean4 block; "
    "do not use sorry.\n\n```lean4\n{code}\n```"
)
PROMPT_REFERENCE = (
    "Replace every `sorry` in the following Lean 4 file so that it compiles; keep everything else unchanged. "
    "Give the complete file in one ```lean4 block.\n\n```lean4\n{code}\n```"
)


def minif2f_label(name: str) -> tuple[str | None, dict[str, Any]]:
    """miniF2F's source from a problem name: ``mathd_algebra_478`` -> ``mathd`` (subject algebra)."""
    m = re.match(r"(amc12[ab]?|amc|aime(?:I|II)?|imo(?:sl)?|mathd|algebra|numbertheory|induction)_?([a-z]+)?", name)
    if not m:
        return None, {}
    head = m.group(1)
    source = (
        "amc"
        if head.startswith("amc")
        else "aime"
        if head.startswith("aime")
        else "imo"
        if head.startswith("imo")
        else head
    )
    config: dict[str, Any] = {"source": source}
    if source == "mathd" and m.group(2):
        config["subject"] = m.group(2)
    year = re.search(r"_(19|20)(\d\d)", name)
    if year:
        config["year"] = int(year.group(1) + year.group(2))
    return source, config


class LeanDatasetEnv(DatasetEnv):
    """Base of the Lean envs: tasks are statements or reference files; no gold completion exists."""

    family = "lean"
    public_metadata_keys = ("name", "split", "source")
    # The prompt asks for a ```lean4 block, and so does the format reward (not plain's \boxed{}).
    default_prompt_format: ClassVar[str] = LEAN4_FORMAT.name
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = OWN_FORMATS

    def __init__(self, *, verifier: LeanVerifier | None = None, **kwargs: Any) -> None:
        # limit= is the base class's: every row is checked, then the first `limit` tasks are kept.
        # LeanVerifier passes a LeanPolicy's fields on (make("lean", allow_helpers=False)).
        verifier = verifier_from_options(LeanVerifier, kwargs, env_cls=type(self), verifier=verifier, also=[LeanPolicy])
        super().__init__(verifier, **kwargs)

    def verify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        # Lean runs in its own processes (REPLs or a server) with its own budgets, so the batch
        # is checked from here: the static layer inline, then one batched request or the pool.
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        start = time.perf_counter()
        # A completion is one turn: the core's forged-turn screen (Env.verify's) runs here too.
        out: list[Verdict | None] = [
            guard_completion(c, self.max_completion_chars)
            or (forged_turn_verdict(c) if self.refuse_forged_turns else None)
            for c in completions
        ]
        todo = [i for i, v in enumerate(out) if v is None]
        verdicts = self.verifier.verify_many([tasks[i] for i in todo], [completions[i] for i in todo])  # type: ignore[attr-defined]
        for i, v in zip(todo, verdicts):
            out[i] = v
        elapsed = (time.perf_counter() - start) / max(1, len(tasks))
        return [v.timed(elapsed) for v in out if v is not None]

    async def averify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        import asyncio

        return await asyncio.to_thread(self.verify_batch, tasks, completions)

    def make_task(
        self,
        *,
        task_id: str,
        header: str | None,
        statement: str | None,
        reference: str | None,
        source: str,
        row_number: int,
        informal: str | None = None,
        label: Any = None,
        config: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Task:
        try:
            if reference is not None:
                parse_reference(reference)
                answer: dict[str, Any] = {"reference": reference}
                prompt = PROMPT_REFERENCE.format(code=reference.rstrip())
            else:
                if statement is None or header is None:
                    raise TaskFormatError("a statement task needs a header and a statement")
                parse_statement(header, statement)
                answer = {"header": header, "statement": statement}
                shown = statement.rstrip()
                if not shown.endswith(":=") and not shown.endswith("by"):
                    shown += " :="
                comment = (
                    f"/-- {informal.strip()} -/\n" if informal and informal.strip() and "-/" not in informal else ""
                )
                prompt = PROMPT_STATEMENT.format(code=f"{header.rstrip()}\n\n{comment}{shown}")
        except TaskFormatError as exc:
            raise DataError(f"{source} row {row_number}: {exc}") from exc
        label = label if isinstance(label, (str, int, float)) else None
        return Task(
            id=task_id,
            prompt=prompt,
            answer=answer,
            metadata=metadata or {},
            difficulty=Difficulty(label=label, config=config or {}),
        )


class LeanEnv(LeanDatasetEnv):
    """Your own Lean tasks: ``make("lean", data=...)``.

    Args:
        data: a JSONL/JSON/Parquet/CSV path, a list of dicts, or a ``datasets.Dataset``.
        header_key, statement_key: the columns of a statement task (a row without a header
            column is an error unless ``default_header=`` is given).
        reference_key: the column of a reference file (rows with it are reference tasks).
        id_key, informal_key, difficulty_key: optional columns (id, informal statement, label).
    """

    def __init__(
        self,
        data: Any = None,
        *,
        header_key: str = "header",
        statement_key: str = "statement",
        reference_key: str = "reference",
        id_key: str | None = None,
        informal_key: str | None = None,
        difficulty_key: str | None = None,
        default_header: str | None = None,
        split: str | None = None,
        **kwargs: Any,
    ) -> None:
        if data is None:
            raise DataRequiredError(
                "make('lean') needs your data: data= a .jsonl/.json/.parquet/.csv path, a list of dicts or a "
                "datasets.Dataset with header/statement (or reference) columns; for miniF2F use lean-minif2f"
            )
        super().__init__(**kwargs)
        self.keys = {"header": header_key, "statement": statement_key, "reference": reference_key}
        self.id_key, self.informal_key, self.difficulty_key = id_key, informal_key, difficulty_key
        self.default_header = default_header
        self._source = str(data) if isinstance(data, str) else type(data).__name__
        self._records = numbered_records(data, split)  # (the row's line in its file, the row)
        self._tasks  # noqa: B018 -- load now, so bad data fails at make() time

    def _load_tasks(self) -> list[Task]:
        tasks = []
        hint = "header_key=/statement_key= (or reference_key=)"
        for index, (number, row) in enumerate(self._records):
            if isinstance(row, dict) and row.get(self.keys["reference"]) not in (None, ""):
                ref = require_fields(row, {"reference": self.keys["reference"]}, source=self._source, row_number=number)
                header, statement, reference = None, None, str(ref["reference"])
            else:
                values = require_fields(
                    row,
                    {"statement": self.keys["statement"]},
                    source=self._source,
                    row_number=number,
                    mapping_hint=hint,
                )
                raw_header = row.get(self.keys["header"]) if isinstance(row, dict) else None
                if isinstance(raw_header, str):
                    header = raw_header  # an empty header is core Lean with no imports
                elif self.default_header is not None and raw_header is None:
                    header = self.default_header
                else:
                    header = str(
                        require_fields(
                            row,
                            {"header": self.keys["header"]},
                            source=self._source,
                            row_number=number,
                            mapping_hint=hint,
                        )["header"]
                    )
                statement, reference = str(values["statement"]), None
            task_id = str(row[self.id_key]) if self.id_key else str(index)
            tasks.append(
                self.make_task(
                    task_id=task_id,
                    header=header,
                    statement=statement,
                    reference=reference,
                    source=self._source,
                    row_number=number,
                    informal=row.get(self.informal_key) if self.informal_key else None,
                    label=row.get(self.difficulty_key) if self.difficulty_key else None,
                )
            )
        return tasks


class _HubLeanEnv(LeanDatasetEnv):
    hub_id: ClassVar[str] = ""
    hub_split: ClassVar[str] = "train"

    def _rows(self, data: Any, hub_id: str | None, split: str) -> list[tuple[int, dict[str, Any]]]:
        """(number, row) pairs: a file's rows numbered by their line, so errors point at it after filtering."""
        if data is not None:
            return numbered_records(data)
        rows = load_hub(
            hub_id or self.hub_id,
            split=split,
            env_name=self.preset,
            option_hint=f"make({self.preset!r}, data='/path/to/file.jsonl')",
        )
        return list(enumerate(rows, start=1))

    preset: ClassVar[str] = ""


class MiniF2FEnv(_HubLeanEnv):
    """miniF2F in Lean 4 (Zheng et al.; the DeepSeek-Prover statement set): ``split="test"`` or ``"valid"``.

    Rows: ``name``, ``split``, ``header``, ``formal_statement`` (and ``informal_prefix``). The
    difficulty label is the source (amc, aime, imo, mathd, algebra, numbertheory, induction).
    """

    preset = "lean-minif2f"
    hub_id = "cat-searcher/minif2f-lean4"

    def __init__(self, *, data: Any = None, split: str = "test", hub_id: str | None = None, **kwargs: Any) -> None:
        if split not in ("test", "valid"):
            raise ValueError(f"lean-minif2f has splits 'test' and 'valid', got {split!r}")
        super().__init__(**kwargs)
        self.split = split
        self._source = str(data) if isinstance(data, str) else (hub_id or self.hub_id)
        hub_split = "validation" if split == "valid" else "test"
        rows = self._rows(data, hub_id, hub_split)
        self._records = [(n, r) for n, r in rows if str(r.get("split", split)) in (split, hub_split)]
        self._tasks  # noqa: B018 -- load now, so missing data fails at make() time

    def _load_tasks(self) -> list[Task]:
        tasks = []
        for number, row in self._records:
            values = require_fields(
                row,
                {"name": "name" if "name" in row else "id", "header": "header", "statement": "formal_statement"},
                source=self._source,
                row_number=number,
            )
            name = str(values["name"])
            label, config = minif2f_label(name)
            tasks.append(
                self.make_task(
                    task_id=name,
                    header=str(values["header"]),
                    statement=str(values["statement"]),
                    reference=None,
                    source=self._source,
                    row_number=number,
                    label=label,
                    config=config,
                    metadata={"name": name, "split": self.split, "source": label},
                )
            )
        if not tasks:
            raise DataUnavailableError(f"{self.preset}: no rows of split {self.split!r} in {self._source}")
        return tasks


class LeanWorkbookEnv(_HubLeanEnv):
    """Lean Workbook (InternLM): autoformalised statements; ``proved_only`` keeps those with a known proof."""

    preset = "lean-workbook"
    hub_id = "internlm/Lean-Workbook"

    def __init__(
        self,
        *,
        data: Any = None,
        hub_id: str | None = None,
        proved_only: bool = True,
        statement_key: str = "formal_statement",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        # The column of the statement: the Hub's `formal_statement`; `statement_key=` maps another
        # (the error for a row without it names this option).
        self.statement_key = statement_key
        self._source = str(data) if isinstance(data, str) else (hub_id or self.hub_id)
        rows = self._rows(data, hub_id, "train")
        self._records = [(n, r) for n, r in rows if not proved_only or str(r.get("status", "proved")) == "proved"]
        self._tasks  # noqa: B018

    def _load_tasks(self) -> list[Task]:
        tasks = []
        for index, (number, row) in enumerate(self._records):
            values = require_fields(
                row,
                {"statement": self.statement_key},
                source=self._source,
                row_number=number,
                mapping_hint="statement_key=",
            )
            header = row.get("header") if isinstance(row.get("header"), str) and row.get("header") else DEFAULT_HEADER
            tasks.append(
                self.make_task(
                    task_id=str(row.get("id", index)),
                    header=header,
                    statement=str(values["statement"]),
                    reference=None,
                    source=self._source,
                    row_number=number,
                    informal=row.get("natural_language_statement"),
                    label=row.get("tags") if isinstance(row.get("tags"), str) else None,
                )
            )
        return tasks
