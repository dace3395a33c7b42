"""A sampler for any OpenAI-compatible server (vLLM, SGLang, TGI, llama.cpp, hosted APIs).

Standard library only (``urllib`` plus a thread pool), so it works wherever the core does.
Requests run at most ``max_concurrency`` at a time; connection errors, timeouts, 408/409/429
and 5xx answers are retried with exponential back-off and jitter (honouring ``Retry-After``);
other 4xx answers fail at once with the server's message, since retrying cannot fix them.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rlvr_envs.samplers.base import (
    Prompt,
    SamplerError,
    SamplingParams,
    check_generate_args,
    flatten_messages,
    make_fingerprint,
    stable_hash,
)

_RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAICompatibleSampler:
    """Samples from ``{base_url}/chat/completions`` (``chat=True``) or ``{base_url}/completions``.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the served model name (sent as ``model``; part of the fingerprint).
        revision: the model revision served, if known (part of the fingerprint only).
        chat: use the chat endpoint (the server applies its chat template) or raw completions.
        chat_template: an identifier of the server's chat template (part of the fingerprint),
            since it cannot be read from the server.
        params: sampling parameters.
        max_concurrency: most requests in flight at once.
        max_retries: retries of a failed request before giving up.
        timeout_s: socket timeout of one request.
        backoff_s / max_backoff_s: first and largest wait between retries.
        api_key: bearer token; defaults to ``$OPENAI_API_KEY`` when set. Never fingerprinted.
        extra_body: more request fields (``top_k``, ``repetition_penalty``...); fingerprinted.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        revision: str | None = None,
        chat: bool = True,
        chat_template: str | None = None,
        params: SamplingParams | None = None,
        max_concurrency: int = 8,
        max_retries: int = 4,
        timeout_s: float = 120.0,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        api_key: str | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be non-negative, got {max_retries}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.revision = revision
        self.chat = chat
        self.chat_template = chat_template
        self.params = params or SamplingParams()
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.extra_body = dict(extra_body or {})
        self.stats = {"requests": 0, "retries": 0}
        self._stats_lock = threading.Lock()

    # -- identity --------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "kind": "openai",
            "model": self.model,
            "revision": self.revision,
            "endpoint": "chat/completions" if self.chat else "completions",
            "chat_template": self.chat_template,
            "params": self.params.as_dict(),
            "extra_body": self.extra_body,
        }

    @property
    def fingerprint(self) -> str:
        return make_fingerprint(self.model, self.describe())

    # -- sampling --------------------------------------------------------------------------------
    def generate(self, prompts: Sequence[Prompt], n: int) -> list[list[str]]:
        check_generate_args(prompts, n)
        if not prompts:
            return []
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(prompts))) as pool:
            return list(pool.map(lambda prompt: self._complete(prompt, n), prompts))

    def _body(self, prompt: Prompt, n: int, seed_offset: int) -> tuple[str, dict[str, Any]]:
        p = self.params
        body: dict[str, Any] = {
            "model": self.model,
            "n": n,
            "temperature": p.temperature,
            "top_p": p.top_p,
            "max_tokens": p.max_tokens,
        }
        if p.seed is not None:
            body["seed"] = p.seed + seed_offset
        if p.stop:
            body["stop"] = list(p.stop)
        body.update(self.extra_body)
        if self.chat:
            body["messages"] = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
            return "/chat/completions", body
        body["prompt"] = prompt if isinstance(prompt, str) else flatten_messages(prompt)
        return "/completions", body

    def _complete(self, prompt: Prompt, n: int) -> list[str]:
        """All ``n`` completions of one prompt, topping up when a server returns fewer choices."""
        texts: list[str] = []
        # Seeds follow the prompt's content (not its place in a batch), so a resumed or re-batched
        # run asks for the same samples; top-up requests move the seed so they do not repeat them.
        offset = int(stable_hash(prompt, 8), 16)
        for _ in range(n):
            path, body = self._body(prompt, n - len(texts), offset + len(texts))
            reply = self.post_json(path, body)
            choices = reply.get("choices") if isinstance(reply, dict) else None
            if not isinstance(choices, list) or not choices:
                raise SamplerError(f"{self.base_url}{path} answered without choices: {str(reply)[:300]}")
            choices = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
            for choice in choices:
                texts.append(self._choice_text(choice, path))
            if len(texts) >= n:
                return texts[:n]
        raise SamplerError(f"{self.base_url}{path} kept returning fewer than {n} choices")

    def _choice_text(self, choice: Any, path: str) -> str:
        if not isinstance(choice, dict):
            raise SamplerError(f"{path}: malformed choice {choice!r:.200}")
        if self.chat:
            message = choice.get("message") or {}
            text = message.get("content") if isinstance(message, dict) else None
        else:
            text = choice.get("text")
        # A model may legitimately produce nothing (or only a tool call): that is an empty completion.
        return text if isinstance(text, str) else ""

    def post_json(self, path: str, body: dict[str, Any]) -> Any:
        """POST ``body`` as JSON to ``base_url + path`` and return the decoded answer.

        The transport every client of an OpenAI-compatible server shares (this sampler, the judge
        family's client): retries with back-off on 429/5xx and connection errors, ``Retry-After``,
        the per-request timeout, and the ``requests``/``retries`` counts in ``stats``. Raises
        ``SamplerError`` on a refusal or once the retries are spent.
        """
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last_error = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                with self._stats_lock:
                    self.stats["retries"] += 1
            with self._stats_lock:
                self.stats["requests"] += 1
            request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method="POST")
            retry_after: float | None = None
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:500].decode("utf-8", "replace")
                last_error = f"HTTP {exc.code}: {detail}"
                if exc.code not in _RETRYABLE_STATUS:
                    raise SamplerError(f"{self.base_url}{path} refused the request ({last_error})") from None
                retry_after = _parse_retry_after(exc.headers.get("Retry-After"))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
            except json.JSONDecodeError as exc:
                last_error = f"the answer is not JSON ({exc})"
            if attempt < self.max_retries:
                time.sleep(self._backoff(attempt, retry_after))
        raise SamplerError(
            f"{self.base_url}{path} failed after {self.max_retries + 1} attempt(s); last error: {last_error}"
        )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff_s)
        wait = min(self.backoff_s * 2**attempt, self.max_backoff_s)
        return wait * (0.5 + random.random() / 2)  # jitter keeps many clients from retrying in step


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own back-off
