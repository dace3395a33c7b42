"""The family's environments: ``judge-ref`` (reference answers), ``rubric`` and ``judge`` (your data).

Rows are ``{"prompt", "reference"?, "rubric"?, "id"?, "example"?}``: ``reference`` is a
reference answer, ``rubric`` a list of criteria (see ``rlvr_judge.rubric``), ``example`` an
optional response that meets the rubric (never shown to a judge; the conformance kit and demos
use it as the gold completion). A task's answer is ``{"reference": ..., "rubric": [...]}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, ClassVar

from rlvr_envs import DatasetEnv, Task, Verdict
from rlvr_envs.checks import TaskIds, options_for
from rlvr_envs.data import is_missing, numbered_records, require_fields
from rlvr_envs.errors import DataError, DataRequiredError
from rlvr_envs.formats import PromptFormat
from rlvr_judge.cache import JudgeCache
from rlvr_judge.client import JudgeClient, resolve_judges
from rlvr_judge.rubric import CriterionError, parse_rubric
from rlvr_judge.verifier import JudgeVerifier

VERBATIM = PromptFormat(
    name="judge-verbatim",
    system_prompt=None,
    instruction="",
    answer_template="{answer}",
    format_pattern=r".+",
)
"""Rubric tasks are shown as written: the rubric is the judge's, not an instruction to the policy."""


DEFAULT_KEYS = {"prompt": "prompt", "reference": "reference", "rubric": "rubric", "example": "example"}


def row_to_task(
    row: Any,
    index: int,
    *,
    keys: dict[str, str] = DEFAULT_KEYS,
    id_key: str | None = None,
    needs: str = "either",
    source: str = "data",
    row_number: int | None = None,
) -> Task:
    """One data row as a judge task; ``DataError`` naming the row and the column options when unusable.

    ``index`` gives the default id; ``row_number`` (default ``index + 1``) is the number errors quote,
    the row's line in its file."""
    k = keys
    number = index + 1 if row_number is None else row_number
    hint = "prompt_key=/reference_key=/rubric_key="
    needed = {"prompt": k["prompt"]}
    if needs in ("reference", "rubric"):
        needed[needs] = k[needs]
    values = require_fields(row, needed, source=source, row_number=number, mapping_hint=hint)
    reference = row.get(k["reference"])
    rubric_raw = row.get(k["rubric"])
    if is_missing(reference):
        reference = None
    if rubric_raw is None or (isinstance(rubric_raw, (list, str)) and not rubric_raw):
        rubric_raw = None
    if reference is None and rubric_raw is None:
        raise DataError(
            f"{source} row {number}: neither a reference ({k['reference']!r}) nor a rubric "
            f"({k['rubric']!r}); map your columns with {hint}"
        )
    rubric = None
    if rubric_raw is not None:
        try:
            rubric = [c.as_dict() for c in parse_rubric(rubric_raw)]
        except CriterionError as exc:
            raise DataError(f"{source} row {number}: bad rubric: {exc}") from None
    task_id = str(row[id_key]) if id_key and id_key in row else str(index)
    answer: dict[str, Any] = {"reference": None if reference is None else str(reference), "rubric": rubric}
    example = row.get(k["example"])
    metadata = {"example": str(example)} if not is_missing(example) else {}
    return Task(id=task_id, prompt=str(values["prompt"]), answer=answer, metadata=metadata)


class JudgeDatasetEnv(DatasetEnv):
    """Base of the judge envs.

    Judge options: ``judge=`` (a ``JudgeClient`` or a list: an ensemble), or ``base_url=`` and
    ``model=`` (plus the client options ``api_key_env``, ``max_concurrency``, ``timeout_s``,
    ``max_retries``...), or ``$RLVR_JUDGE_BASE_URL`` / ``$RLVR_JUDGE_MODEL``. Without any, ``make``
    fails naming them. ``samples``, ``combine``, ``aggregation``, ``pass_threshold`` and
    ``cache`` (a path, a ``JudgeCache``, or False) configure the verifier.

    Data options: ``data`` (path, rows or ``datasets`` object), ``split``, ``limit``,
    ``prompt_key``, ``reference_key``, ``rubric_key``, ``id_key``, ``example_key``.

    Judge calls are network-bound, so ``verify_batch`` runs them on threads in this process
    (``isolation="inline"``, the default here); the client's timeouts and bounded retries cap
    each call. ``isolation="pool"`` runs them in the verification pool instead.
    """

    family = "judge"
    default_prompt_format: ClassVar[str] = VERBATIM.name
    prompt_formats: ClassVar[Mapping[str, PromptFormat]] = {VERBATIM.name: VERBATIM}
    needs: ClassVar[str] = "either"
    """Which of reference / rubric a row must have: ``reference``, ``rubric`` or ``either``."""
    builtin_data: ClassVar[str | None] = None

    def __init__(
        self,
        data: Any = None,
        *,
        judge: Any = None,
        base_url: str | None = None,
        model: str | None = None,
        cache: JudgeCache | str | bool | None = None,
        prompt_key: str = "prompt",
        reference_key: str = "reference",
        rubric_key: str = "rubric",
        id_key: str | None = None,
        example_key: str = "example",
        split: str | None = None,
        limit: int | None = None,
        isolation: str = "inline",
        **kwargs: Any,
    ) -> None:
        client_options = options_for(JudgeClient, kwargs, env_cls=type(self))
        verifier_options = options_for(JudgeVerifier, kwargs, env_cls=type(self))
        if data is None and self.builtin_data is None:
            raise DataRequiredError(
                f"{type(self).__name__} needs your data: data= a .jsonl/.json/.parquet/.csv path, a list of dicts "
                "or a datasets.Dataset, with rows {'prompt', 'reference' and/or 'rubric'}"
            )
        judges = resolve_judges(judge, base_url, model, **client_options)
        super().__init__(
            JudgeVerifier(judges, cache=cache, **verifier_options), isolation=isolation, limit=limit, **kwargs
        )
        fmt = self.prompt_format
        self.judge_verifier.echo_sources = tuple(t for t in (fmt.instruction, fmt.system_prompt or "") if t.strip())
        self.keys = {"prompt": prompt_key, "reference": reference_key, "rubric": rubric_key, "example": example_key}
        self.id_key = id_key
        if data is None:
            source = resources.files("rlvr_judge") / "data" / str(self.builtin_data)
            self._source = f"built-in {self.builtin_data}"
            with resources.as_file(source) as path:
                self._records = numbered_records(path, split, limit)
        else:
            self._source = str(data) if isinstance(data, str) else type(data).__name__
            # Only the first `limit` rows are read and checked (the base class's limit= then keeps them all).
            self._records = numbered_records(data, split, limit)
        self._tasks  # noqa: B018 -- load now, so bad data fails at make() time

    @property
    def judge_verifier(self) -> JudgeVerifier:
        return self.verifier  # type: ignore[return-value]

    def _load_tasks(self) -> list[Task]:
        tasks, ids = [], TaskIds()  # before DatasetEnv's own check, to name the rows
        for index, (number, row) in enumerate(self._records):
            task = row_to_task(
                row, index, keys=self.keys, id_key=self.id_key, needs=self.needs, source=self._source, row_number=number
            )
            ids.add(task.id, f"{self._source} row {number}")
            tasks.append(task)
        return tasks

    def answer_text(self, task: Task) -> str | None:
        answer = task.answer if isinstance(task.answer, dict) else {}
        if answer.get("rubric"):
            return task.metadata.get("example")
        return answer.get("reference")

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        answer = task.answer if isinstance(task.answer, dict) else {}
        if answer.get("rubric"):
            return None  # a rubric grades a whole response, not one final answer among candidates
        return super().hedged_completion(task, n_candidates)

    def verify_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[Verdict]:
        if self.isolation != "inline" or len(tasks) <= 1:
            return super().verify_batch(tasks, completions)
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        width = min(len(tasks), sum(j.max_concurrency for j in self.judge_verifier.judges))
        with ThreadPoolExecutor(max_workers=max(1, width)) as pool:
            return list(pool.map(self.verify, tasks, completions))

    def judge_stats(self) -> dict[str, Any]:
        """Calls, retries, repairs, errors, tokens and cost per judge, and the cache's hit rate."""
        v = self.judge_verifier
        return {
            "judges": {j.name: dict(j.stats) for j in v.judges},
            "cache": v.cache.stats() if v.cache is not None else None,
        }


class JudgeRefEnv(JudgeDatasetEnv):
    """Free-form answers judged equivalent to a reference (``judge-ref``); built-in QA set by default."""

    default_prompt_format = "answer_tag"
    needs = "reference"
    builtin_data = "judge_ref_demo.jsonl"


class RubricEnv(JudgeDatasetEnv):
    """Responses graded against a rubric of weighted criteria (``rubric``); built-in set by default."""

    needs = "rubric"
    builtin_data = "rubric_demo.jsonl"


class JudgeEnv(JudgeDatasetEnv):
    """Your data: prompt plus a rubric and/or a reference (``judge``)."""

    needs = "either"
