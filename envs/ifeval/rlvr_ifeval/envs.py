"""IFEval-family environments: the verifier, the IFEval and IFBench presets, user data."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rlvr_envs import DatasetEnv, Reason, Task, Verdict, Verifier
from rlvr_envs.formats import PROMPT_FORMATS, PromptFormat, get_format, register_format
from rlvr_ifeval import text
from rlvr_ifeval.base import Checker, InstructionError
from rlvr_ifeval.scoring import cached_checkers, check_response

_VERBATIM = PromptFormat(
    name="verbatim",
    system_prompt=None,
    instruction="",
    answer_template="{answer}",
    format_pattern=r".*",
    methods=(),
)
if PROMPT_FORMATS.get(_VERBATIM.name, _VERBATIM) == _VERBATIM:
    register_format(_VERBATIM)
VERBATIM_FORMAT = _VERBATIM
"""The prompt exactly as written, no system prompt, the whole completion is the response."""


def resolve_format(fmt: str | PromptFormat) -> PromptFormat:
    """A prompt format by name; "verbatim" is ours even if another plugin took the name."""
    if fmt == _VERBATIM.name:
        return _VERBATIM
    return get_format(fmt)


DEFAULT_MIN_WORDS = 5
_THINK_RE = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_ANSWER_RE = re.compile(r"<answer>(.*)</answer>", re.DOTALL)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])  # the same set
MAX_CONTROL_FRACTION = 0.005


def canonical_answer(answer: Any) -> str:
    return json.dumps(answer, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _normalise(value: str) -> str:
    # str.split() and the regex \s both split on str.isspace() characters.
    return " ".join(value.split()).casefold()


_FIRST_WINDOW = 256


def _normalised_head(response: str, prompts: Sequence[str]) -> tuple[str, bool]:
    """A beginning of ``_normalise(response)`` that settles whether it starts with each prompt,
    and whether it is all of it.

    Normalising works per character and per whitespace run, so normalising the response's first
    characters gives a beginning of the normalised response. It settles a prompt once it is at
    least as long or already differs from it; the window grows until every prompt is settled.
    """
    window = _FIRST_WINDOW
    while True:
        head = _normalise(response[:window])
        if window >= len(response):
            return head, True
        if not any(len(p) > len(head) and p.startswith(head) for p in prompts):
            return head, False
        window *= 4


def _control_characters(response: str) -> int:
    if response.isascii():  # bytes.translate deletes in C, far faster than a regex scan
        raw = response.encode("ascii")
        return len(raw) - len(raw.translate(None, _CONTROL_BYTES))
    return len(_CONTROL_RE.findall(response))


@lru_cache(maxsize=4096)
def _normalised_prompts(prompt: str, prompt_format: str) -> tuple[str, ...]:
    """The task prompt as an echo of it would start, longest first (tasks repeat in a batch)."""
    prompts = {_normalise(prompt)}
    fmt = PROMPT_FORMATS.get(prompt_format)
    if fmt is not None:
        prompts.add(_normalise(fmt.user_message(prompt)))
    return tuple(sorted(prompts, key=len, reverse=True))


class IFEvalVerifier(Verifier):
    """Checks a response against the task's instructions.

    Args:
        partial_credit: reward the fraction of instructions followed instead of all-or-nothing.
        loose: use the reference's loose mode (response variants) instead of strict.
        min_words: responses with fewer words than this (and no instruction that asks for a
            short answer) are rejected as non-answers; 0 turns the guard off.
        prompt_format: name of the env's prompt format; ``r1`` requires a closed ``<think>``.
    """

    # Loading language detection (langdetect's profiles, numba's kernels: 2-5 s) happens when a
    # worker unpickles the verifier (``__setstate__``), which the pool does not budget.
    time_budget_s = 5.0

    def __init__(
        self,
        *,
        partial_credit: bool = False,
        loose: bool = False,
        min_words: int = DEFAULT_MIN_WORDS,
        prompt_format: str = _VERBATIM.name,
    ) -> None:
        if min_words < 0:
            raise ValueError(f"min_words must be non-negative, got {min_words}")
        self.partial_credit = partial_credit
        self.loose = loose
        self.min_words = min_words
        self.prompt_format = prompt_format

    def __setstate__(self, state: dict) -> None:
        # The verification pool unpickles a verifier in its worker before the first call: load
        # language detection there, so that no call's budget pays for it.
        self.__dict__.update(state)
        try:
            from rlvr_ifeval.language import warm_up

            warm_up()
        except Exception:  # a broken install shows up in the verdicts, with its reason
            pass

    def response_text(self, completion: str) -> str | None:
        """The part of a completion that is the response (None: required layout missing)."""
        if self.prompt_format == "r1":
            __, sep, tail = completion.rpartition("</think>")
            if not sep:
                return None
            answer = _ANSWER_RE.search(tail)
            return answer.group(1) if answer else tail
        # Reasoning models often lead with a think block even when not asked to; it is not the response.
        think = _THINK_RE.match(completion)  # anchored at the start: sub() would try every position
        return completion[think.end() :] if think else completion

    def degenerate(self, task: Task, response: str, checkers: Sequence[Checker]) -> str | None:
        """Why a response is not an attempt at the task, or None."""
        if not response.strip():  # what str.split() drops, strip() strips: nothing else is left
            return "empty response"
        if _control_characters(response) > MAX_CONTROL_FRACTION * len(response):
            return "binary data, not text"
        prompts = [p for p in _normalised_prompts(task.prompt, self.prompt_format) if p]
        head, complete = _normalised_head(response, prompts)
        body: str | None = head if complete else None
        for prompt in prompts:
            if head.startswith(prompt):
                body = (head if complete else _normalise(response))[len(prompt) :]
                if text.count_words(body) < max(self.min_words, 1):
                    return "the response only echoes the prompt"
                break
        if self.min_words:
            if body is None and text.count_words(head) >= self.min_words:
                return None  # the beginning alone has enough words
            if text.count_words(_normalise(response) if body is None else body) < self.min_words:
                if not any(c.allows_short_answer() for c in checkers):
                    return f"fewer than {self.min_words} words, and no instruction asks for a short answer"
        return None

    def verify(self, task: Task, completion: str) -> Verdict:
        try:
            checkers = cached_checkers(canonical_answer(task.answer))
        except (InstructionError, ValueError, TypeError) as exc:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": f"malformed task: {exc}"[:500]})
        if not checkers:
            return Verdict.failure(Reason.VERIFIER_ERROR, details={"error": "the task lists no instructions"})
        response = self.response_text(completion)
        if response is None:
            return Verdict.failure(Reason.FORMAT_ERROR, details={"error": "no closing </think> before the response"})
        why = self.degenerate(task, response, checkers)
        if why is not None:
            return Verdict.failure(Reason.NO_ANSWER, details={"rejected": why})
        results = check_response(checkers, response, loose=self.loose)
        followed = sum(r.followed for r in results)
        details = {
            "mode": "loose" if self.loose else "strict",
            "followed": followed,
            "total": len(results),
            "instructions": [r.as_dict() for r in results],
        }
        if followed == len(results):
            return Verdict.correct(details=details)
        reward = followed / len(results) if self.partial_credit else 0.0
        return Verdict.failure(Reason.WRONG, details=details, reward=reward)


def _read_rows(data: Any) -> list[Mapping[str, Any]]:
    if isinstance(data, (str, Path)):
        path = Path(data)
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist")
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            return list(pq.read_table(path).to_pylist())
        raw = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            loaded = json.loads(raw)
            return list(loaded if isinstance(loaded, list) else loaded.get("data", []))
        return [json.loads(line) for line in raw.splitlines() if line.strip()]
    if isinstance(data, Iterable):
        return [dict(row) for row in data]
    raise TypeError(f"data must be a path, a list of dicts or a datasets.Dataset, got {type(data).__name__}")


def row_to_task(row: Mapping[str, Any], index: int, source: str) -> Task:
    """One IFEval-schema row (key, prompt, instruction_id_list, kwargs) as a validated Task."""
    missing = [k for k in ("prompt", "instruction_id_list") if k not in row]
    if missing:
        raise InstructionError(f"{source} row {index} lacks {missing}")
    ids = list(row["instruction_id_list"])
    kwargs = [dict(k or {}) for k in (row.get("kwargs") or [{} for _ in ids])]
    try:
        cached_checkers(canonical_answer({"instruction_id_list": ids, "kwargs": kwargs}))
    except InstructionError as exc:
        raise InstructionError(f"{source} row {index} (key {row.get('key')!r}): {exc}") from exc
    key = row.get("key", index)
    return Task(
        id=str(key),
        prompt=str(row["prompt"]),
        answer={"instruction_id_list": ids, "kwargs": kwargs},
        metadata={"key": key, "instruction_id_list": ids, "source": source},
        difficulty={"label": len(ids), "config": {"n_instructions": len(ids)}},
    )


class IFEvalEnv(DatasetEnv):
    """Prompts with verifiable instructions in the IFEval schema (IFEval, IFBench or your own).

    Args:
        data: a JSONL/JSON/Parquet path, a list of dicts or a ``datasets.Dataset`` with
            ``prompt``, ``instruction_id_list`` and ``kwargs`` (``key`` optional). Without it
            the preset's Hugging Face dataset is loaded.
        hub_dataset, hub_split: the Hub dataset used when ``data`` is not given.
        size: keep only the first ``size`` tasks.
        partial_credit, loose, min_words: see ``IFEvalVerifier``.
    """

    family = "ifeval"
    default_prompt_format = _VERBATIM.name
    public_metadata_keys = ("key", "instruction_id_list")

    def __init__(
        self,
        data: Any = None,
        *,
        hub_dataset: str | None = None,
        hub_split: str = "train",
        size: int | None = None,
        partial_credit: bool = False,
        loose: bool = False,
        min_words: int = DEFAULT_MIN_WORDS,
        prompt_format: str | PromptFormat | None = None,
        **kwargs: Any,
    ) -> None:
        fmt = resolve_format(prompt_format or self.default_prompt_format)
        verifier = IFEvalVerifier(
            partial_credit=partial_credit, loose=loose, min_words=min_words, prompt_format=fmt.name
        )
        super().__init__(verifier, prompt_format=fmt, **kwargs)
        if size is not None and size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.data = data
        self.hub_dataset = hub_dataset
        self.hub_split = hub_split
        self.size = size

    def _rows(self) -> tuple[list[Mapping[str, Any]], str]:
        if self.data is not None:
            source = str(self.data) if isinstance(self.data, (str, Path)) else "user data"
            return _read_rows(self.data), source
        if not self.hub_dataset:
            raise ValueError(f"{self.env_id}: no data given; pass data=<path or list of dicts>")
        try:
            import datasets

            rows = list(datasets.load_dataset(self.hub_dataset, split=self.hub_split))
        except Exception as exc:
            raise RuntimeError(
                f"{self.env_id}: could not load {self.hub_dataset!r} from the Hugging Face Hub "
                f"({type(exc).__name__}: {str(exc)[:200]}); offline, pass data=<path to a local JSONL copy>"
            ) from exc
        return rows, self.hub_dataset

    def _load_tasks(self) -> list[Task]:
        rows, source = self._rows()
        if self.size is not None:
            rows = rows[: self.size]
        return [row_to_task(row, i, source) for i, row in enumerate(rows)]

    def gold_completion(self, task: Task) -> str | None:
        return None  # instruction following has no canonical response

    def hedged_completion(self, task: Task, n_candidates: int = 50) -> str | None:
        return None
