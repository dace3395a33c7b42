"""DAPO on episodes: sample a group of multi-turn rollouts per task, score, and step on the model's ids.

Each step draws ``prompts_per_step`` tasks, runs ``group_size`` episodes of each with the current
policy (``episode_rollout.rollout_episode``: tool results appended as template deltas, ids kept
as generated), computes group advantages from the episodes' rewards, drops groups whose rewards
are all equal (DAPO's dynamic sampling: they carry no signal), and takes one optimiser step on
the clipped token-level loss over the model's ids only. Metrics per step: the reward, the loss,
the groups kept, and ``episode_metrics`` (turns, tool calls, tool errors, tool use, truncation
per env).

Several envs train in one run: ``env`` is then a mapping of env id to env and each task an
``(env_id, task)`` pair, so every episode runs in its own env (its tools, budgets, verifier).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rlvr_trainers.episode_grpo import batch_sampler, episode_loss, group_advantages
from rlvr_trainers.episode_rollout import ChatDeltas, EnvCopies, EpisodeRollout, episode_metrics, rollout_jobs

RewardOverride = Callable[[EpisodeRollout], float]
"""A control's reward in place of the verifier's (e.g. pay any final answer)."""


@dataclass
class EpisodeTrainSettings:
    steps: int = 50
    prompts_per_step: int = 4
    group_size: int = 8
    learning_rate: float = 1e-4
    max_new_tokens: int = 48
    """Per turn."""
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    min_p: float | None = None
    repetition_penalty: float = 1.0
    epsilon: float = 0.2
    epsilon_high: float = 0.28
    max_grad_norm: float = 1.0
    warmup_steps: int = 0
    scale_rewards: bool = True
    """Divide each group's advantages by its reward std (DAPO/GRPO); False: mean-centred only."""
    drop_flat: bool = True
    """Leave groups whose rewards are all equal out of the loss and its token normaliser."""
    on_error: str = "skip"
    """A ``verifier_error`` final answer: skip (out of the loss), zero (pays 0) or fail (raise after 8 in a row)."""
    template_kwargs: dict[str, Any] = field(default_factory=dict)
    max_batch: int = 64
    """Episodes generated together, in lockstep (one ``generate`` per turn for all of them); 1: one at a time."""
    seed: int = 0


def _routed(env: Any, tasks: Sequence[Any]) -> list[tuple[Any, Any]]:
    """``(env, task)`` for each task: one env for plain tasks, or a mapping for ``(env_id, task)`` pairs."""
    if not isinstance(env, Mapping):
        return [(env, task) for task in tasks]
    out = []
    for item in tasks:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise ValueError("with several envs, each task is an (env_id, task) pair")
        env_id, task = item
        if env_id not in env:
            raise ValueError(f"a task of {env_id!r}, which is not among the envs {sorted(env)}")
        out.append((env[env_id], task))
    return out


def episode_rewards(
    rollouts: Sequence[EpisodeRollout], policy: Any, reward: RewardOverride | None = None
) -> list[float | None]:
    """Each episode's reward: 0 when a budget cut it, else the control's or the verifier's under ``policy``
    (a ``FailurePolicy``: None where it leaves a ``verifier_error`` out)."""
    from rlvr_envs.adapters.failures import SKIP

    out: list[float | None] = [0.0 if r.truncated else None for r in rollouts]
    finished = [i for i, r in enumerate(rollouts) if not r.truncated]
    if reward is not None:
        for i in finished:
            out[i] = float(reward(rollouts[i]))
        return out
    with_verdict = [i for i in finished if rollouts[i].verdict is not None]
    paid = policy.rewards([rollouts[i].verdict for i in with_verdict], can_skip=True) if with_verdict else []
    for i, value in zip(with_verdict, paid):
        out[i] = None if value is SKIP else float(value)
    for i in finished:
        if rollouts[i].verdict is None:
            out[i] = float(rollouts[i].reward)
    return out


def advantages_and_kept(
    rewards: Sequence[float | None], group_size: int, *, scale: bool, drop_flat: bool
) -> tuple[list[float], list[int]]:
    """Group advantages (0 for a reward left out) and the rollouts that enter the loss."""
    advantages = [0.0] * len(rewards)
    kept: list[int] = []
    for start in range(0, len(rewards), group_size):
        members = [i for i in range(start, start + group_size) if rewards[i] is not None]
        values = [float(rewards[i]) for i in members]  # type: ignore[arg-type]
        if not members or (drop_flat and len(set(values)) < 2):
            continue
        if len(members) > 1:
            for i, adv in zip(members, group_advantages(values, len(values), scale=scale)):
                advantages[i] = adv
        kept += members
    return advantages, kept


def train_on_episodes(
    model: Any,
    tokenizer: Any,
    env: Any,
    tasks: Sequence[Any],
    settings: EpisodeTrainSettings,
    *,
    reward: RewardOverride | None = None,
    on_step: Callable[[int, dict[str, float]], None] | None = None,
) -> list[dict[str, float]]:
    """Train ``model`` on episodes of ``env`` (an ``EpisodeEnv``, or a mapping of them with
    ``(env_id, task)`` pairs) posed with ``tasks``; per-step metrics."""
    import torch

    from rlvr_envs.adapters.failures import FailurePolicy

    if not tasks:
        raise ValueError("no tasks to train on")
    routed = _routed(env, tasks)
    policy = FailurePolicy(settings.on_error, name="episode trainer")
    rng = random.Random(settings.seed)
    deltas = ChatDeltas(tokenizer, settings.template_kwargs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=0.0)
    warmup = max(0, settings.warmup_steps)
    copies = EnvCopies()
    generate_many = batch_sampler(
        model,
        tokenizer,
        max_new_tokens=settings.max_new_tokens,
        temperature=settings.temperature,
        top_p=settings.top_p,
        top_k=settings.top_k,
        min_p=settings.min_p,
        repetition_penalty=settings.repetition_penalty,
    )
    history: list[dict[str, float]] = []
    for step in range(1, settings.steps + 1):
        lr = settings.learning_rate * min(1.0, step / (warmup + 1))  # linear warm-up, then constant
        for group in optimizer.param_groups:
            group["lr"] = lr
        model.eval()
        jobs = [
            (episode_env, {"task": task})
            for episode_env, task in rng.sample(routed, min(settings.prompts_per_step, len(routed)))
            for _ in range(settings.group_size)
        ]
        rollouts = rollout_jobs(jobs, generate_many, deltas, copies, max_batch=settings.max_batch)
        rewards = episode_rewards(rollouts, policy, reward)
        advantages, kept = advantages_and_kept(
            rewards, settings.group_size, scale=settings.scale_rewards, drop_flat=settings.drop_flat
        )
        scored = [r for r in rewards if r is not None]
        metrics = {
            "step": float(step),
            "reward": sum(scored) / len(scored) if scored else 0.0,
            "groups_kept": len({i // settings.group_size for i in kept}) / (len(rollouts) // settings.group_size),
            "verifier_errors": float(sum(r.verdict_reason == "verifier_error" for r in rollouts)),
            "learning_rate": lr,
            **episode_metrics(rollouts),
        }
        if kept:
            model.train()
            loss = episode_loss(
                model,
                [rollouts[i] for i in kept],
                [advantages[i] for i in kept],
                pad_id=tokenizer.pad_token_id,
                epsilon=settings.epsilon,
                epsilon_high=settings.epsilon_high,
            )
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
            optimizer.step()
            metrics["loss"] = float(loss.detach())
        model.eval()
        history.append(metrics)
        if on_step is not None:
            on_step(step, metrics)
    return history
