"""What every sampler shares: sampling parameters, the ``Sampler`` protocol, fingerprints.

A sampler turns prompts (plain strings, or chat messages) into ``n`` completions each. Its
fingerprint names the distribution the completions come from: the model and its revision,
the sampling parameters and the chat template. Every stored pass rate is keyed by it, so two
runs share results only when they sampled from the same distribution.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

from rlvr_envs.errors import RlvrEnvsError

Message = dict[str, str]
Prompt = str | Sequence[Message]
"""A plain text prompt, or a chat conversation (``[{"role": ..., "content": ...}, ...]``)."""


class SamplerError(RlvrEnvsError, RuntimeError):
    """A sampler could not produce completions (backend missing, server unreachable, ...)."""


@dataclass(frozen=True)
class SamplingParams:
    """Decoding settings that change the distribution of completions (so they key results)."""

    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ValueError(f"temperature must be non-negative, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["stop"] = list(self.stop)
        return out


@runtime_checkable
class Sampler(Protocol):
    """Anything that can sample completions.

    ``fingerprint`` identifies the distribution (model+revision, sampling parameters, chat
    template); ``generate`` returns, for each prompt, a list of ``n`` completion strings.
    """

    @property
    def fingerprint(self) -> str: ...

    def generate(self, prompts: Sequence[Prompt], n: int) -> list[list[str]]: ...


def stable_hash(value: Any, length: int = 12) -> str:
    payload = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:length]


def make_fingerprint(label: str, description: dict[str, Any]) -> str:
    """``<readable label>-<hash of the full description>``, safe in file names."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", label.rsplit("/", 1)[-1]).strip("_")[:48] or "sampler"
    return f"{readable}-{stable_hash(description)}"


def is_chat(prompt: Prompt) -> bool:
    return not isinstance(prompt, str)


def flatten_messages(messages: Sequence[Message]) -> str:
    """A plain-text rendering for backends without a chat template: contents joined by blank lines."""
    return "\n\n".join(str(m.get("content", "")) for m in messages)


def check_generate_args(prompts: Sequence[Prompt], n: int) -> None:
    if isinstance(prompts, str):
        raise TypeError("generate() takes a list of prompts, not a single string")
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    for prompt in prompts:
        if isinstance(prompt, str):
            continue
        if not all(isinstance(m, dict) and "role" in m and "content" in m for m in prompt):
            raise TypeError("a chat prompt must be a list of {'role': ..., 'content': ...} dicts")


class FunctionSampler:
    """A sampler backed by a Python function ``fn(prompt_text, n, seed) -> list[str]``.

    For scripted policies, tests and backends that have no class of their own; ``name`` must
    change whenever the function's behaviour does, since it keys stored results.
    """

    def __init__(self, fn: Any, name: str, params: SamplingParams | None = None) -> None:
        if not callable(fn):
            raise TypeError("fn must be callable")
        self.fn = fn
        self.name = name
        self.params = params or SamplingParams()

    @property
    def fingerprint(self) -> str:
        return make_fingerprint(self.name, {"kind": "function", "name": self.name, **self.params.as_dict()})

    def describe(self) -> dict[str, Any]:
        return {"kind": "function", "name": self.name, "params": self.params.as_dict()}

    def generate(self, prompts: Sequence[Prompt], n: int) -> list[list[str]]:
        check_generate_args(prompts, n)
        out = []
        for prompt in prompts:
            text = prompt if isinstance(prompt, str) else flatten_messages(prompt)
            completions = list(self.fn(text, n, self.params.seed))
            if len(completions) != n or not all(isinstance(c, str) for c in completions):
                raise SamplerError(f"{self.name}: expected {n} string completions, got {completions!r:.200}")
            out.append(completions)
        return out
