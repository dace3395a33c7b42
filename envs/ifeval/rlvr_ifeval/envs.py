"""IFEval-family environments: the IFEval and IFBench presets and the env over your own data.

The verifier lives in ``rlvr_ifeval.verifier``; its names are re-exported here, where they were
first defined, so ``from rlvr_ifeval.envs import IFEvalVerifier`` keeps working.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rlvr_envs import DatasetEnv, Difficulty, Task
from rlvr_envs.data import is_missing, load_hub, records_from, require_fields
from rlvr_envs.errors import ConfigurationError, DataError, DataRequiredError
from rlvr_envs.formats import PromptFormat
from rlvr_ifeval.base import Checker, InstructionError
from rlvr_ifeval.contrast import Background
from rlvr_ifeval.formats import OWN_FORMATS
from rlvr_ifeval.relevance import (
    MIN_RESPONSE_WORDS,
    MIN_SHARE,
    MIN_TASK_UNITS,
    ROUND_11_PASTE,
    reading_round,
)
from rlvr_ifeval.scoring import cached_checkers
from rlvr_ifeval.verifier import (  # noqa: F401 -- re-exported for older imports
    _CONTROL_RE,
    _VERBATIM,
    DEFAULT_MIN_WORDS,
    GUARD_WORDS,
    MAX_CONTROL_FRACTION,
    VERBATIM_FORMAT,
    IFEvalVerifier,
    _control_characters,
    _normalise,
    _normalised_head,
    _normalised_prompts,
    canonical_answer,
    resolve_format,
)

__all__ = ["IFEvalEnv", "IFEvalVerifier", "row_to_task"]


def _checkers(task: Task) -> tuple[Checker, ...]:
    try:
        return cached_checkers(canonical_answer(task.answer))
    except (InstructionError, ValueError, TypeError):
        return ()


def row_to_task(
    row: Mapping[str, Any],
    row_number: int,
    source: str,
    *,
    prompt_key: str = "prompt",
    instructions_key: str = "instruction_id_list",
    kwargs_key: str = "kwargs",
    id_key: str = "key",
) -> Task:
    """One IFEval-schema row (key, prompt, instruction_id_list, kwargs) as a validated Task.

    ``row_number`` is 1-based. A missing, null or empty prompt or instruction list, or
    instructions that cannot be checked, raise ``DataError`` naming the source, row and column.
    """
    hint = "prompt_key=/instructions_key="
    fields = require_fields(
        row,
        {"prompt": prompt_key, "instruction list": instructions_key},
        source=source,
        row_number=row_number,
        mapping_hint=hint,
    )
    raw_ids = fields["instruction list"]
    if isinstance(raw_ids, str) or not hasattr(raw_ids, "__iter__"):
        raise DataError(
            f"{source} row {row_number}: the instruction list column {instructions_key!r} must be a list "
            f"of instruction ids, got {type(raw_ids).__name__}"
        )
    ids = list(raw_ids)
    if not ids:
        raise DataError(f"{source} row {row_number}: the instruction list column {instructions_key!r} is empty")
    if any(is_missing(i) or not isinstance(i, str) for i in ids):
        raise DataError(
            f"{source} row {row_number}: the instruction list column {instructions_key!r} holds a null "
            f"or non-string id: {ids!r}"[:300]
        )
    raw_kwargs = row.get(kwargs_key)
    if raw_kwargs is None or (isinstance(raw_kwargs, float) and is_missing(raw_kwargs)):
        raw_kwargs = [{} for _ in ids]  # IFEval rows without arguments
    try:
        kwargs = [dict(k or {}) for k in raw_kwargs]
    except (TypeError, ValueError) as exc:
        raise DataError(
            f"{source} row {row_number}: the kwargs column {kwargs_key!r} must be a list of objects"
        ) from exc
    key = row.get(id_key, row_number - 1)
    if is_missing(key):
        key = row_number - 1
    try:
        cached_checkers(canonical_answer({"instruction_id_list": ids, "kwargs": kwargs}))
    except InstructionError as exc:
        raise DataError(f"{source} row {row_number} (key {key!r}): {exc}") from exc
    return Task(
        id=str(key),
        prompt=str(fields["prompt"]),
        answer={"instruction_id_list": ids, "kwargs": kwargs},
        metadata={"key": key, "instruction_id_list": ids, "source": source},
        difficulty=Difficulty(label=len(ids), config={"n_instructions": len(ids)}),
    )


_REFERENCE_SCORED = ("empty", "word_salad", "echo_prompt", "binary")
_REFERENCE_REASON = (
    "scored as the reference IFEval/IFBench checker does (guard=False, relevance='off'); "
    "train on ifeval-data / ifeval-synth, which refuse these"
)


class IFEvalEnv(DatasetEnv):
    """Prompts with verifiable instructions in the IFEval schema (IFEval, IFBench or your own).

    The data is read and every row checked when the env is made, so a preset whose data cannot
    be had, or a bad row, fails at ``make()`` with the option or the row named.

    Args:
        data: a JSONL/JSON/Parquet/CSV path, a list of dicts or a ``datasets.Dataset`` with
            ``prompt``, ``instruction_id_list`` and ``kwargs`` (``key`` optional). Without it
            the preset's Hugging Face dataset is loaded (offline: ``DataUnavailableError``).
        path: an alias of ``data`` (one data vocabulary in every family).
        split: the split of a ``DatasetDict`` given as ``data``, or of the Hub dataset.
        limit: keep only the first ``limit`` tasks (``size`` is the older name).
        prompt_key, instructions_key, kwargs_key, id_key: column names of your data.
        hub_dataset, hub_split: the Hub dataset used when ``data`` is not given.
        env_name: the id named in error messages.
        partial_credit, loose, guard, min_words, guard_words, guard_rules, relevance, relevance_judge,
            relevance_min_units, relevance_min_words, relevance_min_share, relevance_background,
            relevance_language, relevance_genre, relevance_outrank, relevance_paste: see ``IFEvalVerifier``
            (the registered ids choose ``relevance``; see the README).
    """

    family = "ifeval"
    default_prompt_format = _VERBATIM.name
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = OWN_FORMATS
    public_metadata_keys = ("key", "instruction_id_list")

    def __init__(
        self,
        data: Any = None,
        *,
        path: Any = None,
        split: str | None = None,
        limit: int | None = None,
        size: int | None = None,
        prompt_key: str = "prompt",
        instructions_key: str = "instruction_id_list",
        kwargs_key: str = "kwargs",
        id_key: str = "key",
        hub_dataset: str | None = None,
        hub_split: str = "train",
        env_name: str = "ifeval",
        partial_credit: bool = False,
        loose: bool = False,
        guard: bool = True,
        min_words: int = DEFAULT_MIN_WORDS,
        guard_words: str = "scripts",
        guard_rules: str | None = None,
        relevance: str = "off",
        relevance_judge: Any = None,
        relevance_min_units: int = MIN_TASK_UNITS,
        relevance_min_words: int = MIN_RESPONSE_WORDS,
        relevance_min_share: float = MIN_SHARE,
        relevance_background: Any = None,
        relevance_language: bool = False,
        relevance_genre: bool = False,
        relevance_outrank: bool = False,
        relevance_paste: bool | int = False,
        prompt_format: str | PromptFormat | None = None,
        **kwargs: Any,
    ) -> None:
        fmt = self.resolve_format(prompt_format or self.default_prompt_format)
        verifier = IFEvalVerifier(
            partial_credit=partial_credit,
            loose=loose,
            guard=guard,
            min_words=min_words,
            guard_words=guard_words,
            guard_rules=guard_rules,
            prompt_format=fmt.name,
            relevance=relevance,
            relevance_judge=relevance_judge,
            relevance_min_units=relevance_min_units,
            relevance_min_words=relevance_min_words,
            relevance_min_share=relevance_min_share,
            relevance_background=relevance_background,
            relevance_language=relevance_language,
            relevance_genre=relevance_genre,
            relevance_outrank=relevance_outrank,
            relevance_paste=relevance_paste,
        )
        super().__init__(verifier, prompt_format=fmt, **kwargs)
        if not guard and relevance == "off":
            # Scoring as the reference checker does (the benchmark ids) pays what it pays: a
            # response that echoes the prompt can satisfy its instructions. `rlvr-envs redteam`
            # shows these classes as EXEMPT, not as holes; the training ids guard against them.
            self.redteam_exempt = dict.fromkeys(_REFERENCE_SCORED, _REFERENCE_REASON)
        if path is not None:
            if data is not None and data is not path and data != path:
                raise ConfigurationError(f"{env_name}: pass data= or its alias path=, not both")
            data = path
        if size is not None and limit is not None and size != limit:
            raise ValueError(f"size= and limit= differ ({size} and {limit}); pass one")
        limit = limit if limit is not None else size
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        self.data = data
        self.split = split
        self.limit = self.size = limit
        self.hub_dataset = hub_dataset
        self.hub_split = hub_split
        self.env_name = env_name
        self.columns = {
            "prompt_key": prompt_key,
            "instructions_key": instructions_key,
            "kwargs_key": kwargs_key,
            "id_key": id_key,
        }
        rows, source = self._rows()
        self._loaded = [row_to_task(row, i + 1, source, **self.columns) for i, row in enumerate(rows)]
        self._tasks  # noqa: B018 -- an empty data set fails at make() too
        if relevance == "contrast" and verifier.relevance_background is None:
            # A response is compared with the other prompts of the same data (contrast.py).
            with reading_round(verifier.relevance_paste >= ROUND_11_PASTE):  # the id's own reading
                verifier.relevance_background = Background.build((t.prompt, _checkers(t)) for t in self._loaded)

    def _rows(self) -> tuple[list[dict[str, Any]], str]:
        if self.data is not None:
            source = str(self.data) if isinstance(self.data, (str, Path)) else "data"
            return records_from(self.data, split=self.split, limit=self.limit), source
        if not self.hub_dataset:
            raise DataRequiredError(
                f"make({self.env_name!r}) needs your data: data= a .jsonl/.json/.parquet/.csv path, a list of "
                "dicts or a datasets.Dataset with prompt, instruction_id_list and kwargs"
            )
        hint = f"make({self.env_name!r}, data='/path/to/{self.hub_dataset.rsplit('/', 1)[-1]}.jsonl')"
        rows = load_hub(self.hub_dataset, split=self.split or self.hub_split, env_name=self.env_name, option_hint=hint)
        return (rows if self.limit is None else rows[: self.limit]), self.hub_dataset

    def _load_tasks(self) -> list[Task]:
        return self._loaded

    def gold_completion(self, task: Task) -> str | None:
        return None  # instruction following has no canonical response

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        return None
