"""DAPO on episodes: sample a group of multi-turn rollouts per task, score, and step on the model's ids.

Each step draws ``prompts_per_step`` tasks, runs ``group_size`` episodes of each with the current
policy (``episode_rollout.rollout_episode``: tool results appended as template deltas, ids kept
as generated), computes group advantages from the episodes' rewards, drops groups whose rewards
are all equal (DAPO's dynamic sampling: they carry no signal), and takes one optimiser step on
the clipped token-level loss over the model's ids only. Metrics per step: the reward, the loss,
the groups kept, and ``episode_metrics`` (turns, tool calls, tool errors, tool use, truncation
per env).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rlvr_trainers.episode_grpo import episode_loss, group_advantages, sampler
from rlvr_trainers.episode_rollout import ChatDeltas, EpisodeRollout, episode_metrics, rollout_episode

RewardOverride = Callable[[EpisodeRollout], float]
"""A control's reward in place of the verifier's (e.g. pay any final answer)."""


@dataclass
class EpisodeTrainSettings:
    steps: int = 50
    prompts_per_step: int = 4
    group_size: int = 8
    learning_rate: float = 1e-4
    max_new_tokens: int = 48
    temperature: float = 1.0
    epsilon: float = 0.2
    epsilon_high: float = 0.28
    max_grad_norm: float = 1.0
    seed: int = 0


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
    """Train ``model`` on episodes of ``env`` (an ``EpisodeEnv``) posed with ``tasks``; per-step metrics."""
    import torch

    if not tasks:
        raise ValueError("no tasks to train on")
    rng = random.Random(settings.seed)
    deltas = ChatDeltas(tokenizer)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=0.0)
    generate = sampler(model, tokenizer, max_new_tokens=settings.max_new_tokens, temperature=settings.temperature)
    history: list[dict[str, float]] = []
    for step in range(1, settings.steps + 1):
        model.eval()
        rollouts: list[EpisodeRollout] = []
        for task in rng.sample(list(tasks), min(settings.prompts_per_step, len(tasks))):
            for _ in range(settings.group_size):
                rollouts.append(rollout_episode(env, generate, deltas, options={"task": task}))
        rewards = [r.reward if reward is None or r.truncated else reward(r) for r in rollouts]
        advantages = group_advantages(rewards, settings.group_size)
        kept = [
            i
            for start in range(0, len(rollouts), settings.group_size)
            if len(set(rewards[start : start + settings.group_size])) > 1
            for i in range(start, start + settings.group_size)
        ]
        metrics = {
            "step": float(step),
            "reward": sum(rewards) / len(rewards),
            "groups_kept": len(kept) / settings.group_size,
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
