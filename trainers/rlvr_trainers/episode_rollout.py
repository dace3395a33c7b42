"""Multi-turn rollouts on episode envs (``make(id, tools=[...])``) as token ids a trainer can use.

One rollout is one id sequence: the prompt (the chat template applied once, at reset), then each
assistant turn's ids exactly as generated, then each tool result's ids, and so on. Nothing is
re-tokenized between turns: a tool message is appended as the chat template's *incremental
delta* (the text the template adds for that message and the next generation prompt, found by
rendering a fixed stand-in chat with and without it), tokenized alone; the whole chat is never
re-encoded. Re-encoding would let the trained ids drift from the sampled ones (a BPE merge across
a turn boundary, a different split of the same text), so the log-probabilities trained on would
not be those of what the policy did.

``loss_mask`` is 1 on exactly the tokens the model generated and 0 on the template's and the
tools' tokens, so a tool's output is never trained on as if the model had written it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rlvr_envs.episodes.chat_deltas import ChatDeltaMismatch, ChatTemplate, check_template
from rlvr_envs.errors import RlvrEnvsError

Generate = Callable[[list[int]], list[int]]
"""The policy: the ids so far -> the ids it generates for its next turn (ending at EOS or cut)."""
GenerateMany = Callable[[list[list[int]]], list[list[int]]]
"""The policy on a batch: each sequence of ids so far -> its next turn's ids."""

_STAND_IN = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "u"},
    {"role": "assistant", "content": "a"},
]
"""A fixed chat the deltas are measured against: a template may render a message differently by
position (the first system message, the first user message), never by what came many turns before."""

SIMPLE_CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
"""A minimal chat template for tokenizers without one (the CPU demo's tiny tokenizer)."""


class ChatDeltaError(RlvrEnvsError, ValueError):
    """The chat template does not render a tool message as an append-only delta."""


@dataclass
class EpisodeRollout:
    """One episode as token ids, with which of them the model generated."""

    env_id: str
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    """Every id after the prompt: the model's turns and the tool results between them."""
    loss_mask: list[int] = field(default_factory=list)
    """Per ``completion_ids`` entry: 1 where the model generated it, 0 for template and tool ids."""
    generated: list[list[int]] = field(default_factory=list)
    """Each turn's ids as the policy returned them (their concatenation is the masked-in ids)."""
    reward: float = 0.0
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    truncated: bool = False
    truncation_reason: str | None = None
    verdict_reason: str | None = None
    verdict: Any = None
    """The final answer's ``Verdict`` (None when a budget cut the episode)."""

    @property
    def ids(self) -> list[int]:
        return self.prompt_ids + self.completion_ids


class ChatDeltas:
    """Token ids for what the chat template adds around a turn, from its incremental rendering."""

    def __init__(self, tokenizer: Any, template_kwargs: Mapping[str, Any] | None = None) -> None:
        self.tokenizer = tokenizer
        self.kwargs = dict(template_kwargs or {})
        if getattr(tokenizer, "chat_template", None) is None:
            raise ChatDeltaError("the tokenizer has no chat template (set one, e.g. SIMPLE_CHAT_TEMPLATE)")
        # The stand-in chat below has no reasoning and one tool turn: a template without a tool role
        # (tool results silently left out of the ids) or one that strips earlier turns' reasoning
        # would pass it. A probe episode with both refuses them before any training.
        try:
            check_template(ChatTemplate(tokenizer=tokenizer, **self.kwargs))
        except ChatDeltaMismatch as exc:
            raise ChatDeltaError(f"this chat template cannot train on episodes turn by turn: {exc}") from exc
        self.eos_id: int | None = tokenizer.eos_token_id
        base = self._render(_STAND_IN, generation_prompt=False)
        eos = tokenizer.eos_token or ""
        # What the template writes after an assistant turn's EOS (Qwen: "\n"): the model stops at
        # EOS, so this tail is the template's, appended and masked out.
        self.close_ids = self._encode(base[base.rfind(eos) + len(eos) :]) if eos and eos in base else []
        self._base = base

    def _render(self, messages: Sequence[Mapping[str, Any]], *, generation_prompt: bool) -> str:
        text = self.tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=generation_prompt, **self.kwargs
        )
        return str(text)

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []

    def prompt_ids(self, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """The episode's opening chat with the generation prompt, tokenized once."""
        return self._encode(self._render(messages, generation_prompt=True))

    def tool_ids(self, tool_messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """The template's text for ``tool_messages`` and the next generation prompt, as ids."""
        full = self._render([*_STAND_IN, *tool_messages], generation_prompt=True)
        if not full.startswith(self._base):
            raise ChatDeltaError(
                "the chat template rewrites earlier turns when a tool message is added, so a "
                "tool result cannot be appended as a delta"
            )
        return self._encode(full[len(self._base) :])


def _start(env: Any, deltas: ChatDeltas, options: Mapping[str, Any] | None, seed: int | None) -> EpisodeRollout:
    _, info = env.reset(seed=seed, options=dict(options) if options else None)
    return EpisodeRollout(env_id=env.env_id, prompt_ids=deltas.prompt_ids(info["messages"]))


def _advance(env: Any, rollout: EpisodeRollout, turn_ids: list[int], deltas: ChatDeltas) -> bool:
    """Play one generated turn in ``env``; True while the episode goes on (tool results appended)."""
    rollout.generated.append(turn_ids)
    rollout.completion_ids += turn_ids
    rollout.loss_mask += [1] * len(turn_ids)
    text = deltas.tokenizer.decode(turn_ids, skip_special_tokens=True)
    _, reward, terminated, truncated, info = env.step(text)
    rollout.turns, rollout.tool_calls, rollout.tool_errors = info["turn"], info["tool_calls"], info["tool_errors"]
    if terminated or truncated:
        rollout.reward = 0.0 if truncated else float(reward)
        rollout.truncated = bool(truncated)
        rollout.truncation_reason = info.get("truncation_reason")
        verdict = info.get("verdict")
        rollout.verdict = verdict
        rollout.verdict_reason = None if verdict is None else str(verdict.reason)
        return False
    # The turn's end as the template writes it (EOS if the turn was cut), then the tool results.
    tail = ([] if turn_ids and turn_ids[-1] == deltas.eos_id else [deltas.eos_id]) if deltas.eos_id is not None else []
    between = tail + deltas.close_ids + deltas.tool_ids(info["tool_messages"])
    rollout.completion_ids += between
    rollout.loss_mask += [0] * len(between)
    return True


def rollout_episode(
    env: Any,
    generate: Generate,
    deltas: ChatDeltas,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> EpisodeRollout:
    """Run one episode of ``env`` (an ``EpisodeEnv``) with ``generate`` as the policy."""
    rollout = _start(env, deltas, options, seed)
    while _advance(env, rollout, list(generate(rollout.ids)), deltas):
        pass
    return rollout


def rollout_episodes(
    envs: Sequence[Any],
    generate_many: GenerateMany,
    deltas: ChatDeltas,
    options: Sequence[Mapping[str, Any] | None],
) -> list[EpisodeRollout]:
    """One episode per env, in lockstep: each turn, every episode still running is generated in one
    batch (``generate_many``), then stepped in its own env. Each env runs one episode at a time, so
    the envs must be distinct objects (``EnvCopies``); the ids are kept exactly as generated."""
    if len(envs) != len(options):
        raise ValueError(f"{len(envs)} envs for {len(options)} episodes")
    if len({id(e) for e in envs}) != len(envs):
        raise ValueError("each episode needs an env of its own (EnvCopies.take(env, n))")
    rollouts = [_start(env, deltas, opts, None) for env, opts in zip(envs, options)]
    running = list(range(len(envs)))
    while running:
        turns = generate_many([rollouts[i].ids for i in running])
        running = [i for i, turn in zip(running, turns) if _advance(envs[i], rollouts[i], list(turn), deltas)]
    return rollouts


class EnvCopies:
    """Distinct copies of each episode env, made once and reused, so several episodes of one env can
    run at once: a copy holds its own episode (chat, counters, tool sessions) and shares the wrapped
    env, its verifier and pool (a shallow copy of an idle ``EpisodeEnv``)."""

    def __init__(self) -> None:
        self._copies: dict[int, list[Any]] = {}

    def take(self, env: Any, n: int) -> list[Any]:
        """``n`` distinct envs that behave as ``env`` (``env`` itself first)."""
        import copy

        made = self._copies.setdefault(id(env), [env])
        while len(made) < n:
            if getattr(env, "current_task", None) is not None:
                raise ValueError("copy an episode env between episodes, not during one")
            made.append(copy.copy(env))
        return made[:n]


def rollout_jobs(
    jobs: Sequence[tuple[Any, Mapping[str, Any] | None]],
    generate_many: GenerateMany,
    deltas: ChatDeltas,
    copies: EnvCopies,
    *,
    max_batch: int = 64,
) -> list[EpisodeRollout]:
    """One episode per ``(env, options)`` job, in lockstep batches of up to ``max_batch``; in order."""
    if max_batch < 1:
        raise ValueError(f"max_batch must be at least 1, got {max_batch}")
    out: list[EpisodeRollout] = []
    for start in range(0, len(jobs), max_batch):
        chunk = jobs[start : start + max_batch]
        needed: dict[int, int] = defaultdict(int)
        envs = []
        for env, _ in chunk:
            envs.append(copies.take(env, needed[id(env)] + 1)[needed[id(env)]])
            needed[id(env)] += 1
        out += rollout_episodes(envs, generate_many, deltas, [options for _, options in chunk])
    return out


def episode_metrics(rollouts: Sequence[EpisodeRollout]) -> dict[str, float]:
    """Per-env means: ``episodes/<env>/{turns,tool_calls,tool_errors,tool_use,truncated,reward}``."""
    by_env: dict[str, list[EpisodeRollout]] = defaultdict(list)
    for rollout in rollouts:
        by_env[rollout.env_id].append(rollout)
    metrics: dict[str, float] = {}
    for env_id, group in sorted(by_env.items()):
        n = len(group)
        prefix = f"episodes/{env_id}/"
        metrics[prefix + "turns"] = sum(r.turns for r in group) / n
        metrics[prefix + "tool_calls"] = sum(r.tool_calls for r in group) / n
        metrics[prefix + "tool_errors"] = sum(r.tool_errors for r in group) / n
        metrics[prefix + "tool_use"] = sum(r.tool_calls > 0 for r in group) / n
        metrics[prefix + "truncated"] = sum(r.truncated for r in group) / n
        metrics[prefix + "reward"] = sum(r.reward for r in group) / n
    return metrics
