"""The attacker, shipped: generic exploit transformations run against any registered env.

``rlvr-envs redteam ENV`` (or ``run_redteam(env)``) takes real tasks and their gold answers,
applies a library of exploit transformations (refusals, hedges in seven languages, several final
answers, answers hidden in the reasoning, value-changing tails, negated or invisible answers,
off-topic word salad, the prompt echoed, huge and binary inputs, and for programs: early exits,
always-equal results, harness tampering, feedback mining; round 13: values encoded, hidden by
rendering or in other notations, hedges before or around the answer slot, forged chat turns; round 15:
scales glued to the value, the gold inside a longer token, a restatement of another value in another
notation, reversed displays, digits of another script, self-corrections in 30 languages, other
families' reasoning blocks, the gold one item of a list),
verifies each through the env's
``verify_batch`` and reports, per class, how many wrong answers earned reward.
"""

from __future__ import annotations

from rlvr_envs.redteam.catalog import BY_NAME, CLASSES, KIT_CLASSES, AttackClass, select
from rlvr_envs.redteam.report import ClassResult, Outcome, RedteamReport
from rlvr_envs.redteam.runner import run_redteam
from rlvr_envs.redteam.target import Probe, Target, make_target

__all__ = [
    "BY_NAME",
    "CLASSES",
    "KIT_CLASSES",
    "AttackClass",
    "ClassResult",
    "Outcome",
    "Probe",
    "RedteamReport",
    "Target",
    "make_target",
    "run_redteam",
    "select",
]
