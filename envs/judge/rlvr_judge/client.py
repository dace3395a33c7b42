"""The judge client: one OpenAI-compatible chat endpoint, called deterministically and strictly parsed.

Transport is the hub's sampler layer (``rlvr_envs.samplers.openai_compat``): retries with
back-off on connection errors, timeouts, 408/429/5xx (honouring ``Retry-After``), immediate
failure on other 4xx. On top of it the client adds what a judge needs: a concurrency limit
shared by every thread of the process, temperature 0 and a seed, one repair request when the
reply does not parse, and token / cost accounting. Every failure is a ``JudgeError``; the
verifier turns it into ``verifier_error``, never into a reward.

A circuit breaker per endpoint keeps a dead or hanging judge from stalling a batch: after
``breaker_threshold`` judge requests in a row fail at the transport (timeouts, connection
errors, HTTP errors once the retries are spent; an unparseable reply is an answer and resets the
count), every call to that endpoint fails at once with ``JudgeCircuitOpen`` for
``breaker_cooldown_s``; then one call is let through (half-open): success closes the breaker,
failure opens it for another cool-down. The breaker is shared by every client of the process
that calls the same ``base_url`` (all threads, all envs). Processes do not share it: each pool
worker (``isolation="pool"``) keeps its own and finds out on its own.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.errors import RlvrEnvsError
from rlvr_judge.templates import REPAIR_MESSAGE, ParseError, Template, parse_reply

ENV_BASE_URL = "RLVR_JUDGE_BASE_URL"
ENV_MODEL = "RLVR_JUDGE_MODEL"
ENV_API_KEY = "RLVR_JUDGE_API_KEY_ENV"


class JudgeError(RlvrEnvsError):
    """A judge call failed: endpoint unreachable or refusing, timed out, or an unparseable reply."""


class JudgeCircuitOpen(JudgeError):
    """The endpoint's circuit breaker is open: the call was refused at once, without a request."""


class CircuitBreaker:
    """Consecutive transport failures of one endpoint, shared by every client in the process."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self._lock = threading.Lock()
        self.failures = 0
        self.opened_at: float | None = None
        self.probing = False
        self.last_error = ""
        self.refused = 0

    def before(self, threshold: int, cooldown_s: float, *, claim: bool = True) -> None:
        """Raise ``JudgeCircuitOpen`` while open; after the cool-down let one probe call through
        (``claim=False``: only look, as a call about to queue for a slot does)."""
        if threshold < 1:
            return
        with self._lock:
            if self.opened_at is None:
                return
            waited = time.monotonic() - self.opened_at
            if waited >= cooldown_s and not self.probing:
                self.probing = self.probing or claim  # half-open: this call is the probe
                return
            self.refused += 1
            left = max(0.0, cooldown_s - waited)
            raise JudgeCircuitOpen(
                f"circuit breaker open for {self.endpoint}: {self.failures} judge requests in a row failed "
                f"(breaker_threshold={threshold}; last: {self.last_error[:200]}); calls fail at once, the next "
                f"try in {left:.0f} s" + (" (a probe call is in flight)" if self.probing else "")
            )

    def success(self) -> None:
        with self._lock:
            self.failures, self.opened_at, self.probing = 0, None, False

    def failure(self, error: str, threshold: int) -> None:
        with self._lock:
            self.failures += 1
            self.last_error = error
            self.probing = False
            if threshold >= 1 and self.failures >= threshold:
                self.opened_at = time.monotonic()  # (re)open: the cool-down starts again

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None


_BREAKERS: dict[str, CircuitBreaker] = {}
_BREAKERS_LOCK = threading.Lock()


def breaker_for(base_url: str) -> CircuitBreaker:
    """The process's circuit breaker of an endpoint (one per ``base_url``)."""
    key = base_url.rstrip("/")
    with _BREAKERS_LOCK:
        found = _BREAKERS.get(key)
        if found is None:
            found = _BREAKERS[key] = CircuitBreaker(key)
        return found


class JudgeUnavailableError(RlvrEnvsError, RuntimeError):
    """A judge env was made without a judge endpoint (the message names the options)."""


@dataclass
class Judgement:
    """One parsed judge reply."""

    value: dict[str, Any]
    raw: str
    usage: dict[str, int] = field(default_factory=dict)
    repaired: bool = False
    latency_s: float = 0.0


class JudgeClient:
    """Calls ``{base_url}/chat/completions`` of any OpenAI-compatible server.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (vLLM, ``transformers serve``,
            a hosted provider).
        model: the served model name (part of the fingerprint, hence of every cache key).
        api_key_env: the environment variable holding the API key (read at call time, never
            stored, pickled or fingerprinted). Unset variable: no ``Authorization`` header.
        temperature, seed, max_tokens: decoding; temperature 0 and a fixed seed by default.
        max_concurrency: most calls in flight at once from this process, all threads together.
        max_retries, timeout_s, backoff_s, max_backoff_s: transport (see the sampler layer).
        repair: ask once more, showing the model its unreadable reply, before giving up.
        cost_per_1k_prompt, cost_per_1k_completion: prices for the cost estimate in ``stats``.
        extra_body: more request fields (fingerprinted).
        name: a label for reports (defaults to the model name).
        breaker_threshold: judge requests in a row that fail at the transport before the
            endpoint's circuit breaker opens (0 turns it off); breaker_cooldown_s: how long it stays
            open before one probe call (see the module docstring).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int = 256,
        max_concurrency: int = 8,
        max_retries: int = 3,
        timeout_s: float = 60.0,
        backoff_s: float = 0.5,
        max_backoff_s: float = 10.0,
        repair: bool = True,
        cost_per_1k_prompt: float = 0.0,
        cost_per_1k_completion: float = 0.0,
        extra_body: dict[str, Any] | None = None,
        name: str | None = None,
        breaker_threshold: int = 5,
        breaker_cooldown_s: float = 30.0,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not model:
            raise ValueError("model= must name the served judge model")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if temperature < 0:
            raise ValueError(f"temperature must be non-negative, got {temperature}")
        if breaker_threshold < 0 or breaker_cooldown_s < 0:
            raise ValueError("breaker_threshold and breaker_cooldown_s must be non-negative")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.repair = repair
        self.cost_per_1k_prompt = cost_per_1k_prompt
        self.cost_per_1k_completion = cost_per_1k_completion
        self.extra_body = dict(extra_body or {})
        self.name = name or model
        self.breaker_threshold = breaker_threshold
        self.breaker_cooldown_s = breaker_cooldown_s
        self._init_runtime()

    def _init_runtime(self) -> None:
        self._semaphore = threading.BoundedSemaphore(self.max_concurrency)
        self._lock = threading.Lock()
        self._transport: Any = None
        self.stats: dict[str, float] = {
            "calls": 0, "requests": 0, "retries": 0, "repairs": 0, "errors": 0,
            "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0, "latency_s": 0.0,
        }  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_semaphore", "_lock", "_transport", "stats")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_runtime()

    @classmethod
    def from_env(cls, **overrides: Any) -> JudgeClient | None:
        """A client from ``$RLVR_JUDGE_BASE_URL`` and ``$RLVR_JUDGE_MODEL``, or None when unset."""
        base_url = overrides.pop("base_url", None) or os.environ.get(ENV_BASE_URL)
        model = overrides.pop("model", None) or os.environ.get(ENV_MODEL)
        if not base_url or not model:
            return None
        if os.environ.get(ENV_API_KEY) and "api_key_env" not in overrides:
            overrides["api_key_env"] = os.environ[ENV_API_KEY]
        return cls(base_url, model, **overrides)

    # -- identity --------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "kind": "openai-judge",
            "base_url": self.base_url,
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "extra_body": self.extra_body,
        }

    @property
    def fingerprint(self) -> str:
        from rlvr_envs.samplers.base import make_fingerprint

        return make_fingerprint(self.model, self.describe())

    # -- calls -----------------------------------------------------------------------------------
    def _post(self, body: dict[str, Any]) -> Any:
        with self._lock:  # one transport per client, even when the first calls race
            if self._transport is None:
                self._transport = self._make_transport()
        transport = self._transport
        try:
            # The sampler layer's transport: retries, back-off, timeouts, Retry-After.
            return transport.post_json("/chat/completions", body)
        finally:
            with self._lock:  # the transport counts under its own lock; copy its totals
                self.stats["requests"] = transport.stats["requests"]
                self.stats["retries"] = transport.stats["retries"]

    def _make_transport(self) -> Any:
        from rlvr_envs.samplers.openai_compat import OpenAICompatibleSampler

        return OpenAICompatibleSampler(
            self.base_url,
            self.model,
            max_retries=self.max_retries,
            timeout_s=self.timeout_s,
            backoff_s=self.backoff_s,
            max_backoff_s=self.max_backoff_s,
            api_key=os.environ.get(self.api_key_env, "") if self.api_key_env else "",
        )

    def _body(self, messages: list[dict[str, str]], temperature: float, seed: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": self.max_tokens,
            "n": 1,
        }
        if seed is not None:
            body["seed"] = seed
        body.update(self.extra_body)
        return body

    @property
    def breaker(self) -> CircuitBreaker:
        return breaker_for(self.base_url)

    def _chat(self, messages: list[dict[str, str]], temperature: float, seed: int | None) -> tuple[str, dict[str, int]]:
        from rlvr_envs.samplers.base import SamplerError

        breaker = self.breaker
        breaker.before(self.breaker_threshold, self.breaker_cooldown_s)
        try:
            reply = self._post(self._body(messages, temperature, seed))
        except SamplerError as exc:
            breaker.failure(str(exc), self.breaker_threshold)
            raise JudgeError(str(exc)) from None
        except BaseException:
            breaker.failure("the request was interrupted", self.breaker_threshold)
            raise
        breaker.success()  # the endpoint answered, whatever the answer says
        try:
            choice = reply["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise JudgeError(
                f"{self.base_url}: the answer has no choices[0].message.content: {str(reply)[:200]}"
            ) from None
        usage = reply.get("usage") if isinstance(reply, dict) else None
        counts = (
            {k: int(usage.get(k) or 0) for k in ("prompt_tokens", "completion_tokens")}
            if isinstance(usage, dict)
            else {}
        )
        with self._lock:
            self.stats["prompt_tokens"] += counts.get("prompt_tokens", 0)
            self.stats["completion_tokens"] += counts.get("completion_tokens", 0)
            self.stats["cost"] += (
                counts.get("prompt_tokens", 0) * self.cost_per_1k_prompt
                + counts.get("completion_tokens", 0) * self.cost_per_1k_completion
            ) / 1000
        return (text if isinstance(text, str) else ""), counts

    def judge(
        self,
        messages: list[dict[str, str]],
        template: Template,
        *,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> Judgement:
        """One judgement: a call, strict parsing, one repair call if needed. Raises ``JudgeError``."""
        temp = self.temperature if temperature is None else temperature
        use_seed = self.seed if seed is None else seed
        start = time.perf_counter()
        # Refused before waiting for a slot too: calls queued behind a hung wave fail at once.
        self.breaker.before(self.breaker_threshold, self.breaker_cooldown_s, claim=False)
        with self._semaphore:
            with self._lock:
                self.stats["calls"] += 1
            try:
                raw, usage = self._chat(messages, temp, use_seed)
                try:
                    value = parse_reply(raw, template)
                    repaired = False
                except ParseError as first:
                    if not self.repair:
                        raise JudgeError(f"unparseable judge reply ({first}): {raw[:200]!r}") from None
                    with self._lock:
                        self.stats["repairs"] += 1
                    retry = [
                        *messages,
                        {"role": "assistant", "content": raw},
                        {"role": "user", "content": REPAIR_MESSAGE},
                    ]
                    raw2, usage2 = self._chat(retry, temp, use_seed)
                    usage = {k: usage.get(k, 0) + usage2.get(k, 0) for k in set(usage) | set(usage2)}
                    try:
                        value = parse_reply(raw2, template)
                    except ParseError as second:
                        raise JudgeError(
                            f"unparseable judge reply after one repair ({second}): {raw2[:200]!r}"
                        ) from None
                    raw, repaired = raw2, True
            except JudgeError:
                with self._lock:
                    self.stats["errors"] += 1
                raise
            finally:
                with self._lock:
                    self.stats["latency_s"] += time.perf_counter() - start
        return Judgement(value=value, raw=raw, usage=usage, repaired=repaired, latency_s=time.perf_counter() - start)


def resolve_judges(judge: Any = None, base_url: str | None = None, model: str | None = None, **client_kwargs: Any):
    """The judge list an env uses: ``judge=`` (a client or a list), else base_url/model, else the
    environment variables; ``JudgeUnavailableError`` naming those options when there is none."""
    if judge is not None:
        judges = list(judge) if isinstance(judge, (list, tuple)) else [judge]
        if not judges or not all(isinstance(j, JudgeClient) for j in judges):
            raise TypeError("judge= must be a JudgeClient or a non-empty list of JudgeClients")
        return judges
    if base_url or model or os.environ.get(ENV_BASE_URL):
        client = JudgeClient.from_env(base_url=base_url, model=model, **client_kwargs)
        if client is not None:
            return [client]
    raise JudgeUnavailableError(
        "this env needs a judge model: pass base_url= (an OpenAI-compatible endpoint such as "
        "http://127.0.0.1:8000/v1) and model=, or judge=JudgeClient(...), or set "
        f"${ENV_BASE_URL} and ${ENV_MODEL} (on the command line: --arg base_url=... --arg model=...)"
    )
