"""The env of the demo's ``carry`` task: multi-digit addition, counted by its carries.

The demo's warm start is trained on sums with at most one carry (``max_carries=1``); RL and
the held-out set use carry-heavy sums (``min_carries=2``: chained carries, often a 4-digit
result), which the SFT data never shows. Three-digit operands make about 810,000 distinct problems, so neither SFT
nor RL can memorise the held-out ones.
"""

from __future__ import annotations

import random
from typing import Any

from rlvr_envs import Difficulty, ProceduralEnv, Task
from rlvr_envs.errors import ConfigurationError


def carries(a: int, b: int) -> int:
    """How many column additions of ``a + b`` carry a one into the next column."""
    count = carry = 0
    while a or b:
        carry = int(a % 10 + b % 10 + carry >= 10)
        count += carry
        a, b = a // 10, b // 10
    return count


class CarryAdditionEnv(ProceduralEnv):
    """``What is a + b?`` with ``digits``-digit operands and between ``min_carries`` and
    ``max_carries`` carries; with ``carry_share`` set, a task has at least one carry with that
    probability and none otherwise (the bounds are then ignored)."""

    family = "math"
    default_prompt_format = "plain"

    def __init__(
        self,
        *,
        digits: int = 3,
        min_carries: int = 0,
        max_carries: int | None = None,
        carry_share: float | None = None,
        **kwargs: Any,
    ) -> None:
        from rlvr_math.verifier import MathVerifier

        top = digits if max_carries is None else max_carries
        if not isinstance(digits, int) or not 1 <= digits <= 9:
            raise ConfigurationError(f"digits must be an integer in 1..9, got {digits!r}")
        if not 0 <= min_carries <= top <= digits:
            raise ConfigurationError(f"need 0 <= min_carries <= max_carries <= digits, got {min_carries}, {top}")
        if carry_share is not None and not 0 <= carry_share <= 1:
            raise ConfigurationError(f"carry_share must lie in [0, 1], got {carry_share!r}")
        self.digits, self.min_carries, self.max_carries, self.carry_share = digits, min_carries, top, carry_share
        super().__init__(kwargs.pop("verifier", None) or MathVerifier(), **kwargs)

    def generate(self, rng: random.Random) -> Task:
        lo, hi = self.min_carries, self.max_carries
        if self.carry_share is not None:
            lo, hi = (1, self.digits) if rng.random() < self.carry_share else (0, 0)
        low = 10 ** (self.digits - 1) if self.digits > 1 else 0
        while True:  # rejection sampling: every band keeps a sizeable share of the pairs
            a, b = rng.randint(low, 10**self.digits - 1), rng.randint(low, 10**self.digits - 1)
            n = carries(a, b)
            if lo <= n <= hi:
                break
        return Task(
            id=f"D{self.digits}C{n}",
            prompt=f"What is {a} + {b}?",
            answer=str(a + b),
            difficulty=Difficulty(level=n, config={"digits": self.digits, "carries": n}),
        )

    def answer_text(self, task: Task) -> str:
        return str(task.answer)
