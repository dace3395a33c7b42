"""Enumeration across retries: the answer listed one option per turn in a plain multi-turn env.

A family's retry loop (``make(id, max_turns=k)`` without tools) answers a failed attempt with
feedback and lets the policy try again. Where a success on a later turn is paid in full, a policy
that writes one option per turn (yes, then no; A, B, C, D; 0, 1, 2 ...) collects the whole reward
of any task with k options or fewer, having solved none of them. Since round 10 the core pays
turn 1 only by default (``Env(retry_discount=0.0)``); the class shows what an env made with
another policy (or a plugin's own loop) pays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlvr_envs.redteam.attacks_code import do_nothing_program
from rlvr_envs.redteam.target import Probe, Target

if TYPE_CHECKING:
    from rlvr_envs.env import Env


def enumerate_retries(env: Env, t: Target, quick: bool) -> list[tuple[Probe, Any]]:
    """A wrong first attempt, then the gold on turn 2 (and, in full mode, two wrong attempts before
    it where the env allows three turns): what the episode pays after a failed attempt is the hole,
    as the step's paid reward (not the verifier's own verdict, which the env keeps in ``info``).
    Turn 1's wrong attempt is reported as a probe too (a wrong answer: it must earn 0)."""
    if t.gold_completion is None and t.gold is None:
        return []
    first = t.render(do_nothing_program(t)) if t.kind == "code" else t.render(t.wrong)
    gold = t.gold_completion if t.gold_completion is not None else t.render(t.gold or "")
    plans = [[first, gold]]
    if not quick and getattr(env, "max_turns", 1) >= 3:
        plans.append([first, first + "\n", gold])  # two failed attempts, then the answer
    out: list[tuple[Probe, Any]] = []
    for plan in plans:
        label = f"{len(plan) - 1}-wrong-then-gold"
        try:
            env.reset(options={"task": t.task})
        except Exception as exc:
            out.append((Probe(f"{label}:reset", first), exc))
            continue
        for turn, completion in enumerate(plan, 1):
            probe = Probe(f"{label}:turn-{turn}", completion)
            try:
                _, reward, terminated, truncated, _ = env.step(completion)
            except Exception as exc:
                out.append((probe, exc))
                break
            out.append((probe, float(reward)))  # paid: what a trainer adds up over the episode
            if terminated or truncated:
                break
    return out
