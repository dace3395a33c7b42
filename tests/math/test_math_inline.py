"""The math verifier never declares itself cheap: its cost follows what an answer says, not its
length (see ``MathVerifier``), so ``isolation="auto"`` verifies math-arith in the pool."""

from __future__ import annotations

import rlvr_envs
from rlvr_math.verifier import MathVerifier


def test_math_arith_under_auto_goes_to_the_pool():
    assert not MathVerifier().bounded_cheap
    env = rlvr_envs.make("math-arith-v4", level=3)
    assert env.isolation == "auto"
    tasks = env.sample(4, seed=0)
    assert env.inline_plan(tasks, [env.gold_completion(t) for t in tasks]) is None
