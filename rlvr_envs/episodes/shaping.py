"""Per-turn shaping of episodes, kept apart from correctness (as ``rlvr_envs.shaping`` is for
single turns): the verifier's reward of the final answer is never changed here."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EpisodeShaping"]


@dataclass(frozen=True)
class EpisodeShaping:
    """What a tool turn adds to the step reward.

    Attributes:
        tool_error_penalty: subtracted per malformed or failed call in the turn.
        tool_call_bonus: added per well-formed call that ran, for at most ``max_bonus_calls``
            calls in the whole episode (a bonus without a cap pays for calling tools forever).
        max_bonus_calls: the cap above.
    """

    tool_error_penalty: float = 0.0
    tool_call_bonus: float = 0.0
    max_bonus_calls: int = 1

    def __post_init__(self) -> None:
        if self.tool_error_penalty < 0 or self.tool_call_bonus < 0 or self.max_bonus_calls < 0:
            raise ValueError("EpisodeShaping's penalty, bonus and cap are non-negative (the penalty is subtracted)")

    def tool_turn(self, errors: int, good_calls: int, bonus_calls_so_far: int) -> tuple[float, int]:
        """(reward added for this turn, calls paid a bonus in it)."""
        paid = max(0, min(good_calls, self.max_bonus_calls - bonus_calls_so_far)) if self.tool_call_bonus else 0
        return self.tool_call_bonus * paid - self.tool_error_penalty * errors, paid
