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

DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = (
    # End-of-sequence, end-of-turn and padding text of common chat templates, as a tokenizer
    # decodes them with skip_special_tokens=False (OpenRLHF's query).
    "</s>",  # Llama 2, Mistral
    "<s>",  # their BOS
    "<|im_end|>",  # ChatML: Qwen, Yi, OpenHermes
    "<|endoftext|>",  # Qwen's pad/EOS, GPT-2, Phi-2
    "<|eot_id|>",  # Llama 3 end of turn
    "<|end_of_text|>",  # Llama 3 EOS
    "<|begin_of_text|>",  # Llama 3 BOS
    "<|finetune_right_pad_id|>",  # Llama 3.1 pad
    "<end_of_turn>",  # Gemma
    "<eos>",  # Gemma EOS
    "<bos>",  # Gemma BOS
    "<pad>",  # Gemma, T5 pad
    "<|end|>",  # Phi-3
    "<|endoftext|>",
    "<｜end▁of▁sentence｜>",  # DeepSeek (full-width bars)
    "<｜begin▁of▁sentence｜>",
    "<|EOT|>",  # DeepSeek Coder
    "<|return|>",  # gpt-oss
    "<|im_start|>",  # never part of a response
    "[PAD]",
)

_TEMPLATES: tuple[tuple[tuple[str, ...], str], ...] = (
    # (what opens a turn of the template's prompt, the marker its assistant turn starts with)
    (("<|im_start|>",), "<|im_start|>assistant\n"),  # ChatML
    (("<|start_header_id|>",), "<|start_header_id|>assistant<|end_header_id|>\n\n"),  # Llama 3
    (("<start_of_turn>",), "<start_of_turn>model\n"),  # Gemma
    (("<|user|>", "<|system|>"), "<|assistant|>\n"),  # Phi-3, Zephyr
    (("<｜User｜>",), "<｜Assistant｜>"),  # DeepSeek
    (("[INST]",), "[/INST]"),  # Llama 2, Mistral
)
_ASSISTANT_MARKERS = tuple(marker for _, marker in _TEMPLATES)

MAX_ITEMS = 65_536
"""The most samples one request may hold."""


class BadRequest(RlvrEnvsError, ValueError):
    """The request is malformed; the message goes back to the client with status 400."""


@dataclass
class SpecialTokens:
    """Special-token text to strip from queries and responses (longest first, so ``<s>`` never eats ``</s>``)."""

    tokens: tuple[str, ...] = DEFAULT_SPECIAL_TOKENS
    _sorted: tuple[str, ...] = field(init=False, repr=False)
    _again_end: frozenset[str] = field(init=False, repr=False)
    _again_start: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._sorted = tuple(sorted({t for t in self.tokens if t}, key=len, reverse=True))
        # A token no longer token ends (starts) with: when it is there again, it is the longest
        # there, so a run of padding is stripped without trying the whole list at every token.
        longer = list(enumerate(self._sorted))
        self._again_end = frozenset(t for i, t in longer if not any(u.endswith(t) for u in self._sorted[:i]))
        self._again_start = frozenset(t for i, t in longer if not any(u.startswith(t) for u in self._sorted[:i]))

    # Both run on every sample the server scores: one ``startswith``/``endswith`` with the whole
    # tuple says whether any token is there at all (usually none, or one EOS), before the loop
    # finds the longest.
    # Both move an index and cut once: cutting the text at each token copied the rest every time,
    # quadratic in the padding (8,000 decoded pad tokens, ~100 KB: ~20 ms a query; 400,000
    # characters of "</s>": 0.5 s, ~13 s at 2 MB; bench/hostile_time.py).
    def strip_end(self, text: str) -> str:
        """``text`` without trailing special tokens (and the whitespace between them)."""
        tokens = self._sorted
        end, again = len(text), ""
        while True:
            cut = end
            while cut and text[cut - 1].isspace():
                cut -= 1
            if again and text.endswith(again, 0, cut):
                end = cut - len(again)
                continue
            if not tokens or not text.endswith(tokens, 0, cut):
                return text[:end]
            for token in tokens:
                if text.endswith(token, 0, cut):
                    end = cut - len(token)
                    again = token if token in self._again_end else ""
                    break

    def strip_start(self, text: str) -> str:
        """``text`` without leading special tokens (left padding, BOS)."""
        tokens = self._sorted
        at, again = 0, ""
        while tokens:
            if again and text.startswith(again, at):
                at += len(again)
                continue
            if not text.startswith(tokens, at):
                break
            for token in tokens:
                if text.startswith(token, at):
                    at += len(token)
                    again = token if token in self._again_start else ""
                    break
        return text[at:]


def split_query(query: str, prompt: str | None, tokens: SpecialTokens) -> tuple[str, bool]:
    """``(response, prompt_found)`` of an OpenRLHF query (padding + prompt + response + EOS + padding).

    The prompt is looked for after the leading padding and BOS, then anywhere before the query's
    first assistant-turn marker (first match; a copy after it is the policy's own text).
    When it is absent (a tokenizer that does not decode back to the same text), the response is
    what follows as many assistant-turn markers as the prompt holds (``_after_prompt_markers``),
    else the whole query: ``prompt_found`` is then False and the reply flags the sample in
    ``extra_logs["prompt_not_found"]``. With no prompt sent, see ``read_query``: a query whose
    template's assistant marker occurs more than once is ambiguous, and this returns everything
    after its first one (the server refuses such a sample instead of scoring it).
    """
    response, found, _ambiguous = read_query(query, prompt, tokens)
    return response, found


def read_query(query: str, prompt: str | None, tokens: SpecialTokens) -> tuple[str, bool, bool]:
    """``(response, prompt_found, ambiguous)``: ``split_query`` and whether the response cannot be told
    from the prompt. Without the prompt, the query's template is the one whose turn opener comes first
    (before its own assistant marker); its assistant marker once is the turn the policy answers. More than
    once, the query is either a multi-turn prompt or a completion that wrote the marker itself (a hedge,
    then "<|im_start|>assistant" and a clean answer), and nothing in the text tells which: reading after
    the last marker paid the forged turn alone (round 12), reading from the first pays a multi-turn
    prompt's earlier answers. Such a sample is ``ambiguous``: the server refuses it (send ``prompts``).
    Markers of another template than the query's are the policy's text, never a cut."""
    body = tokens.strip_start(query)
    if prompt:
        bare = tokens.strip_start(prompt)
        for candidate in (prompt, bare):
            if candidate and body.startswith(candidate):
                return tokens.strip_end(body[len(candidate) :]), True, False
        # Not at the start (a tokenizer that decodes the prompt's opening otherwise): the first copy,
        # unless it stands after the query's first assistant-turn marker. There it is the policy's
        # own text ("41. Not sure.<prompt>\\boxed{42}" with the real prompt decoded without a space
        # was read from the copy on, the hedge dropped); the markers then say where the response is.
        first_turn = _first_marker(query)
        for candidate in (prompt, bare):
            at = query.find(candidate) if candidate else -1
            if at >= 0 and (first_turn < 0 or at < first_turn):
                return tokens.strip_end(query[at + len(candidate) :]), True, False
        cut = _after_prompt_markers(query, prompt)
        if cut >= 0:
            return tokens.strip_end(query[cut:]), False, False
        return tokens.strip_end(body), False, False
    if prompt == "":
        return tokens.strip_end(body), True, False
    marker = _template_marker(query)
    if marker is None:  # no templated prompt: the query is the response, markers and all
        return tokens.strip_end(body), True, False
    ends = [at + len(marker) for at in _positions(query, marker, limit=2)]
    return tokens.strip_end(query[ends[0] :]), False, len(ends) > 1


def _template_marker(query: str) -> str | None:
    """The assistant marker of the query's chat template: the template whose turn opener stands first,
    before the first of its assistant markers (a marker alone, with no turn opened before it, is text
    the policy wrote), or None."""
    best: tuple[int, str] | None = None
    for openers, marker in _TEMPLATES:
        first = query.find(marker)
        if first < 0:
            continue
        opened = [at for at in (query.find(o, 0, first) for o in openers) if at >= 0]
        if opened and (best is None or min(opened) < best[0]):
            best = (min(opened), marker)
    return best[1] if best else None


def _after_prompt_markers(query: str, prompt: str) -> int:
    """Where the response starts by the assistant-turn markers, or -1 when the query has none.

    The prompt was given but not found verbatim: the response follows as many markers as the prompt
    holds (at least one): the policy's own text may contain a marker ("41. <|im_start|>assistant
    \n42"), and cutting at the last one let it drop everything it wrote before it (a hedge, a second
    answer)."""
    found = sorted((at + len(m), at) for m in _ASSISTANT_MARKERS if m in query for at in _positions(query, m))
    if not found:
        return -1
    wanted = max(1, sum(prompt.count(m) for m in _ASSISTANT_MARKERS))
    return found[min(wanted, len(found)) - 1][0]


def _first_marker(query: str) -> int:
    """Where the query's first assistant-turn marker starts, or -1 when it has none."""
    found = [at for at in (query.find(m) for m in _ASSISTANT_MARKERS) if at >= 0]
    return min(found) if found else -1


def _positions(text: str, marker: str, limit: int = 10_000) -> list[int]:
    out: list[int] = []
    at = text.find(marker)
    while at >= 0 and len(out) < limit:
        out.append(at)
        at = text.find(marker, at + len(marker))
    return out


def response_text(query: str, prompt: str | None, tokens: SpecialTokens | None = None) -> str:
    """The response part of an OpenRLHF query (see ``split_query``)."""
    return split_query(query, prompt, tokens or SpecialTokens(()))[0]


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
