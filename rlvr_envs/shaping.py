"""Reward shaping, kept apart from correctness.

A verdict says whether the answer is right. Shaping turns that into the scalar a trainer
optimises: a format bonus, DAPO's soft over-length penalty, weights. The bundled trainer
and every adapter call the same functions here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlvr_envs.formats import PromptFormat, get_format
from rlvr_envs.types import Verdict


def format_reward(completion: object, prompt_format: str | PromptFormat) -> float:
    """1.0 when the completion follows the format's layout, else 0.0."""
    return 1.0 if get_format(prompt_format).follows_format(completion) else 0.0


def overlong_penalty(length: int, l_max: int, l_cache: int) -> float:
    """DAPO soft over-length punishment.

    0 up to ``l_max - l_cache`` tokens, then a linear ramp down to -1 at ``l_max``, and -1
    beyond. ``length`` is the completion length in tokens.
    """
    if l_cache < 0 or l_max <= 0 or l_cache > l_max:
        raise ValueError(f"need 0 <= l_cache <= l_max and l_max > 0, got l_cache={l_cache}, l_max={l_max}")
    threshold = l_max - l_cache
    if length <= threshold:
        return 0.0
    if length > l_max:
        return -1.0
    return (threshold - length) / l_cache


@dataclass(frozen=True)
class RewardShaping:
    """How a verdict and a completion become one scalar reward.

    Attributes:
        correctness_weight: weight on ``verdict.reward``.
        format_weight: weight on ``format_reward`` (0 turns it off).
        prompt_format: the format whose layout ``format_weight`` rewards.
        l_max: hard length budget in tokens for the over-length penalty (None turns it off).
        l_cache: width of the soft penalty ramp below ``l_max``.
        overlong_weight: weight on the over-length penalty.
    """

    correctness_weight: float = 1.0
    format_weight: float = 0.0
    prompt_format: str | PromptFormat = "plain"
    l_max: int | None = None
    l_cache: int = 0
    overlong_weight: float = 1.0

    def __post_init__(self) -> None:
        get_format(self.prompt_format)
        if self.l_max is not None:
            overlong_penalty(0, self.l_max, self.l_cache)  # validates the pair

    def __call__(
        self,
        verdict: Verdict,
        completion: str,
        length_tokens: int | None = None,
        prompt_format: str | PromptFormat | None = None,
    ) -> float:
        """The shaped reward; ``prompt_format`` (the row's env's own, in a mixture) overrides the
        format whose layout ``format_weight`` pays."""
        reward = self.correctness_weight * verdict.reward
        if self.format_weight:
            reward += self.format_weight * format_reward(completion, prompt_format or self.prompt_format)
        if self.l_max is not None:
            length = length_tokens if length_tokens is not None else len(completion.split())
            reward += self.overlong_weight * overlong_penalty(length, self.l_max, self.l_cache)
        return reward
