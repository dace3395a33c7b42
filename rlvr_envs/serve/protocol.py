"""What the reward server reads and answers, without any HTTP: request bodies in, replies out.

Two request schemas:

- OpenRLHF's remote reward (``POST /get_reward``): ``{"query": [...], "prompts": [...],
  "labels": [...]}`` -> ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``. OpenRLHF
  decodes each whole sequence with ``skip_special_tokens=False``, so a query is left padding,
  maybe a BOS token, the templated prompt, the response, the end-of-sequence token and right
  padding. ``split_query`` finds the response in that.
- Our batch schema (``POST /verify``): ``{"rows": [{"env_id", "task" | "task_id", "completion"}]}``
  -> ``{"verdicts": [Verdict as JSON, ...]}``; a row that is malformed or cannot be verified here
  gets ``{"error": "rows[i]: ..."}`` in its place and the other rows their verdicts.

Every malformed input raises ``BadRequest`` with the reason (HTTP 400); nothing a client sends
reaches a 500.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rlvr_envs.adapters.failures import FailurePolicy
from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.types import Reason, Task, Verdict

if TYPE_CHECKING:
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_envs.shaping import RewardShaping

from rlvr_envs.serve.queries import (  # noqa: F401 -- re-exported: the server's reading of a query
    DEFAULT_SPECIAL_TOKENS,
    SpecialTokens,
    read_query,
    response_text,
    split_query,
)

MAX_ITEMS = 65_536
"""The most samples one request may hold."""


class BadRequest(RlvrEnvsError, ValueError):
    """The request is malformed; the message goes back to the client with status 400."""


# -- rows ----------------------------------------------------------------------------------------------
@dataclass
class TaskPolicy:
    """Which envs and task sources the server accepts (see the security model in the README).

    Args:
        allow_envs: glob patterns of env ids (``code-*``); None accepts every id the router serves.
        task_source: ``"label"`` verifies the task a request carries; ``"dataset"`` only tasks of
            the served envs' own data (a label's task must match one by id and content), so a
            client cannot send its own unit tests to the code sandbox.
    """

    allow_envs: tuple[str, ...] | None = None
    task_source: str = "label"

    def __post_init__(self) -> None:
        if self.task_source not in ("label", "dataset"):
            raise ValueError(f"task_source must be 'label' or 'dataset', got {self.task_source!r}")

    def check_env(self, env_id: str | None, where: str) -> None:
        if self.allow_envs is None or env_id is None:
            return
        import fnmatch

        from rlvr_envs.registration import parse_id

        try:
            name, _ = parse_id(env_id)
        except ValueError as exc:
            raise BadRequest(f"{where}: {exc}") from None
        if not any(fnmatch.fnmatchcase(env_id, p) or fnmatch.fnmatchcase(name, p) for p in self.allow_envs):
            raise BadRequest(
                f"{where}: env {env_id!r} is not accepted by this server (allowed: {list(self.allow_envs)})"
            )


def _task(value: Any, where: str) -> Task:
    from rlvr_envs.adapters.routing import task_from_json

    try:
        return task_from_json(value)
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        raise BadRequest(f"{where}: the task does not parse: {str(exc)[:300]}") from None


def resolve_task(
    router: EnvRouter, policy: TaskPolicy, env_id: str | None, task: Task | None, task_id: Any, where: str
) -> Task:
    """The task to verify: the one sent, or the served env's own (by id) when the policy says so."""
    from rlvr_envs.adapters.routing import RoutingError

    if task is None and task_id is None:
        raise BadRequest(f"{where}: give the task (or its task_id)")
    if policy.task_source == "label" and task is not None:
        return task
    if task_id is not None and not isinstance(task_id, (str, int)):
        raise BadRequest(f"{where}: task_id must be a string")
    try:
        env = router.env_for(env_id) if env_id or router.default is not None else None
    except RoutingError as exc:
        raise BadRequest(f"{where}: {exc}") from None
    if env is None or env.env_id not in router.envs:
        raise BadRequest(f"{where}: tasks by id need the env served by name (rlvr-envs serve ID)")
    wanted = str(task_id) if task_id is not None else task.id  # type: ignore[union-attr]
    try:
        own = env.get_task(wanted)
    except (KeyError, IndexError, ValueError):
        raise BadRequest(f"{where}: {env.env_id} has no task {wanted!r}") from None
    if task is not None and task.fingerprint != own.fingerprint:
        raise BadRequest(
            f"{where}: the task differs from {env.env_id}'s task {wanted!r}; this server verifies only its own"
        )
    return own


class LabelCache:
    """Labels already parsed, by their text: a label is sent once per sample, and GRPO sends each
    prompt's label once per sample of its group. Only labels that parsed are kept, oldest
    dropped first past ``max_chars`` of label text in all; longer labels than
    ``max_label_chars`` are parsed every time. Tasks are frozen, so sharing one is safe."""

    def __init__(self, max_chars: int = 8 * 1024 * 1024, max_label_chars: int = 256 * 1024) -> None:
        self.max_chars = max_chars
        self.max_label_chars = max_label_chars
        self._items: dict[str, tuple[str | None, Task | None, Any, Any]] = {}
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str) -> tuple[str | None, Task | None, Any, Any] | None:
        found = self._items.get(text)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, text: str, value: tuple[str | None, Task | None, Any, Any]) -> None:
        if len(text) > self.max_label_chars:
            return
        with self._lock:
            if text in self._items:
                return
            self._items[text] = value
            self._chars += len(text)
            while self._chars > self.max_chars:
                oldest = next(iter(self._items))
                del self._items[oldest]
                self._chars -= len(oldest)


def _label(
    label: Any, prompt: str | None, index: int, cache: LabelCache | None = None
) -> tuple[str | None, Task | None, Any, Any]:
    """(env id, task, task id, verifier spec) from one OpenRLHF label."""
    if cache is None or not isinstance(label, str):
        return _parse_label(label, prompt, index)[0]
    found = cache.get(label)
    if found is None:
        found, ours = _parse_label(label, prompt, index)
        if ours:  # a bare answer's task carries this sample's index and prompt: not for another sample
            cache.put(label, found)
    return found


def _parse_label(label: Any, prompt: str | None, index: int) -> tuple[tuple[str | None, Task | None, Any, Any], bool]:
    """The label's fields, and whether it was our label (JSON with a task or task id)."""
    parsed = label
    if isinstance(label, str):
        text = label.strip()
        if text[:1] == "{":
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = label
            except RecursionError:
                raise BadRequest(f"labels[{index}]: the label nests too deeply") from None
    if isinstance(parsed, Mapping) and ("task" in parsed or "task_id" in parsed):
        env_id = parsed.get("env_id")
        if env_id is not None and not isinstance(env_id, str):
            raise BadRequest(f"labels[{index}]: env_id must be a string")
        task = _task(parsed["task"], f"labels[{index}]") if parsed.get("task") is not None else None
        return (env_id, task, parsed.get("task_id"), parsed.get("verifier")), True
    if isinstance(parsed, (list, dict)) or parsed is None:
        raise BadRequest(
            f"labels[{index}]: expected our label ({{env_id, task}}) or a bare answer, got {type(parsed).__name__}"
        )
    return (None, Task(id=f"label-{index}", prompt=prompt or "", answer=parsed), None, None), False


def _list(body: Mapping[str, Any], key: str, n: int | None, what: str) -> list[Any] | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise BadRequest(f"{key!r} must be a list of {what}")
    if n is not None and len(value) != n:
        raise BadRequest(f"{key!r} must be a list as long as 'query' ({n}), got {len(value)}")
    return value


@dataclass
class Scoring:
    """What a request is scored with: the router, shaping, special tokens and the policy."""

    router: EnvRouter
    shaping: RewardShaping | None = None
    tokens: SpecialTokens = field(default_factory=SpecialTokens)
    policy: TaskPolicy = field(default_factory=TaskPolicy)
    labels: LabelCache | None = field(default_factory=LabelCache)
    """Parsed labels (None: parse every one)."""
    failures: FailurePolicy = field(default_factory=lambda: FailurePolicy(name="OpenRLHF /get_reward"))
    """What ``/get_reward`` pays for a ``verifier_error`` (``fail`` or ``zero``: OpenRLHF cannot skip
    a sample). Under ``fail`` the request that completes a run of ``max_consecutive`` errors gets
    an HTTP error naming the policy; OpenRLHF's client retries it, then stops the run."""


def _routing_error() -> type[Exception]:
    from rlvr_envs.adapters.routing import RoutingError

    return RoutingError


def openrlhf_rows(scoring: Scoring, body: Mapping[str, Any]) -> tuple[list[tuple[Any, ...]], list[bool]]:
    """The router rows of an OpenRLHF request and, per sample, whether its prompt was found."""
    rows, found, _ambiguous = openrlhf_read(scoring, body)
    return rows, found


def openrlhf_read(scoring: Scoring, body: Mapping[str, Any]) -> tuple[list[tuple[Any, ...]], list[bool], list[bool]]:
    """``openrlhf_rows`` and, per sample, whether its response is ambiguous (``read_query``)."""
    queries = body.get("query")
    if not isinstance(queries, list):
        raise BadRequest("'query' must be a list of strings (prompt + response)")
    n = len(queries)
    if n > MAX_ITEMS:
        raise BadRequest(f"at most {MAX_ITEMS} samples per request, got {n}")
    prompts = _list(body, "prompts", n, "strings")
    labels = _list(body, "labels", n, "labels")
    if labels is None:
        raise BadRequest(f"'labels' must be a list as long as 'query' ({n}): each names the task to verify")
    rows, found, ambiguous = [], [], []
    for i, query in enumerate(queries):
        if not isinstance(query, str):
            raise BadRequest(f"query[{i}] must be a string, got {type(query).__name__}")
        prompt = prompts[i] if prompts is not None else None
        if prompt is not None and not isinstance(prompt, str):
            raise BadRequest(f"prompts[{i}] must be a string, got {type(prompt).__name__}")
        env_id, task, task_id, spec = _label(labels[i], prompt, i, scoring.labels)
        scoring.policy.check_env(env_id, f"labels[{i}]")
        if env_id is None and scoring.router.default is None:
            raise BadRequest(
                f"labels[{i}] names no env and this server serves {len(scoring.router.envs)} envs; "
                "use labels written by `rlvr-envs export --format openrlhf`"
            )
        task = resolve_task(scoring.router, scoring.policy, env_id, task, task_id, f"labels[{i}]")
        text, ok, unclear = read_query(query, prompt, scoring.tokens)
        rows.append((env_id, task, text, spec))
        found.append(ok)
        ambiguous.append(unclear)
    return rows, found, ambiguous


Averify = Callable[[Sequence[tuple[Any, ...]]], Awaitable[list[Verdict]]]
"""What verifies router rows for a request: ``EnvRouter.averify`` or the server's batcher."""


async def score_openrlhf(scoring: Scoring, body: Mapping[str, Any], averify: Averify | None = None) -> dict[str, Any]:
    """Verify one OpenRLHF request body; raises ``BadRequest`` if it is malformed."""
    rows, found, ambiguous = openrlhf_read(scoring, body)
    # An ambiguous sample is refused unverified: which of its text is the response is not known.
    todo = [row for row, unclear in zip(rows, ambiguous) if not unclear]
    try:
        checked = iter(await (averify or scoring.router.averify)(todo) if todo else [])
    except _routing_error() as exc:
        raise BadRequest(str(exc)) from None
    verdicts = [AMBIGUOUS_RESPONSE if unclear else next(checked) for unclear in ambiguous]
    return openrlhf_reply(scoring, rows, verdicts, found, ambiguous)


AMBIGUOUS_RESPONSE = Verdict.failure(
    Reason.FORMAT_ERROR,
    details={
        "refused": "no prompt was sent and the query holds its chat template's assistant marker more than "
        "once: the response cannot be told from the prompt (send 'prompts')"
    },
)
"""The verdict of a sample ``read_query`` finds ambiguous (reward 0, no shaping)."""


def openrlhf_reply(
    scoring: Scoring,
    rows: Sequence[tuple[Any, ...]],
    verdicts: Sequence[Verdict],
    found: Sequence[bool],
    ambiguous: Sequence[bool] | None = None,
) -> dict[str, Any]:
    # Raises InfrastructureFailure under "fail" (the request gets an error, never a reward).
    # Errors in a row are counted per env: a dead backend between healthy rows of other envs
    # must still reach the policy's limit instead of being paid 0.0 forever.
    sources = [row[0] for row in rows]
    paid = [float(p) for p in scoring.failures.rewards(verdicts, can_skip=False, sources=sources)]  # type: ignore[arg-type]
    rewards = []
    # Several envs: each row's format reward is for its own env's layout (lean's block, math's \boxed{}).
    per_row = scoring.shaping is not None and bool(scoring.shaping.format_weight) and scoring.router.default is None
    unclear = list(ambiguous) if ambiguous is not None else [False] * len(rows)
    for verdict, row, pay, refused in zip(verdicts, rows, paid, unclear):
        reward = pay
        if scoring.shaping is not None and verdict.reason is not Reason.VERIFIER_ERROR and not refused:
            fmt = scoring.router.prompt_format_for(row[0], row[3]) if per_row else None
            reward = float(scoring.shaping(verdict, row[2], None, fmt))
        rewards.append(reward)
    return {
        "rewards": rewards,
        "scores": paid,
        "extra_logs": {
            "passed": [float(v.passed) for v in verdicts],
            # OpenRLHF cannot skip a sample: infrastructure failures are flagged so a run can count them.
            "verifier_error": [float(v.reason is Reason.VERIFIER_ERROR) for v in verdicts],
            "timeout": [float(v.reason is Reason.TIMEOUT) for v in verdicts],
            "prompt_not_found": [float(not ok) for ok in found],
            # Refused unread (``read_query``): a run without prompts must see how many.
            "ambiguous_response": [float(refused) for refused in unclear],
        },
    }


def batch_rows(scoring: Scoring, body: Mapping[str, Any]) -> list[tuple[Any, ...] | BadRequest]:
    """The router rows of a ``POST /verify`` body; a row that is malformed is its ``BadRequest``
    (the others are still verified). A body that is not a list of rows raises ``BadRequest``."""
    items = body.get("rows")
    if not isinstance(items, list):
        raise BadRequest("'rows' must be a list of {env_id, task (or task_id), completion}")
    if len(items) > MAX_ITEMS:
        raise BadRequest(f"at most {MAX_ITEMS} rows per request, got {len(items)}")
    rows: list[tuple[Any, ...] | BadRequest] = []
    for i, item in enumerate(items):
        try:
            rows.append(_batch_row(scoring, item, f"rows[{i}]"))
        except BadRequest as exc:
            rows.append(exc)
    return rows


def _batch_row(scoring: Scoring, item: Any, where: str) -> tuple[Any, ...]:
    if not isinstance(item, Mapping):
        raise BadRequest(f"{where} must be an object")
    env_id = item.get("env_id")
    if env_id is not None and not isinstance(env_id, str):
        raise BadRequest(f"{where}: env_id must be a string")
    if env_id is None and scoring.router.default is None:
        raise BadRequest(f"{where}: give env_id (this server serves more than one env)")
    scoring.policy.check_env(env_id, where)
    completion = item.get("completion")
    if not isinstance(completion, str):
        raise BadRequest(f"{where}: completion must be a string")
    task = _task(item["task"], where) if item.get("task") is not None else None
    task = resolve_task(scoring.router, scoring.policy, env_id, task, item.get("task_id"), where)
    row = (env_id, task, completion, item.get("verifier"))
    try:  # routed now, so that a row nothing can verify fails alone instead of failing the batch
        scoring.router.scorer_for(env_id, row[3])
    except _routing_error() as exc:
        raise BadRequest(f"{where}: {exc}") from None
    return row


async def score_batch(scoring: Scoring, body: Mapping[str, Any], averify: Averify | None = None) -> dict[str, Any]:
    """Verify one ``POST /verify`` body: a verdict per row, or ``{"error": ...}`` in the place of a
    row that is malformed or that nothing here can verify. Raises ``BadRequest`` when the body is
    not a list of rows, or when no row of it can be verified (the first row's error)."""
    rows = batch_rows(scoring, body)
    good = [row for row in rows if not isinstance(row, BadRequest)]
    if rows and not good:
        first = rows[0]
        raise first if isinstance(first, BadRequest) else BadRequest("no row can be verified")
    try:
        verdicts = iter(await (averify or scoring.router.averify)(good))
    except _routing_error() as exc:
        raise BadRequest(str(exc)) from None
    return {
        "verdicts": [
            {"error": str(row)} if isinstance(row, BadRequest) else next(verdicts).model_dump(mode="json")
            for row in rows
        ]
    }


def openrlhf_label(env_id: str, task: Task, verifier: Mapping[str, Any] | None = None) -> str:
    """The label string for one task, as ``rlvr-envs export --format openrlhf`` writes it."""
    label: dict[str, Any] = {"env_id": env_id, "task": json.loads(task.model_dump_json())}
    if verifier is not None:
        label["verifier"] = dict(verifier)
    return json.dumps(label, ensure_ascii=False)


def tokenizer_special_tokens(path: str) -> tuple[str, ...]:
    """The special-token text of a local Hugging Face tokenizer (``--tokenizer``)."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    found: Iterable[str] = list(getattr(tok, "all_special_tokens", []) or [])
    extra = [getattr(tok, name, None) for name in ("eos_token", "pad_token", "bos_token")]
    return tuple(dict.fromkeys([*found, *(t for t in extra if isinstance(t, str))]))


_TOKEN_RE = re.compile(r"^\S{1,200}$")


def check_token_text(token: str) -> str:
    if not _TOKEN_RE.match(token):
        raise ValueError(f"a special token to strip must be 1-200 non-space characters, got {token!r}")
    return token
