"""Scaffolding the rg red-team tables share (rounds 11, 12 and 14): one dataset per comparison kind,
its env made once per worker, and the gold negated. Each round's file keeps its own table and test."""

from __future__ import annotations

import warnings
from functools import cache

import rlvr_envs
from rlvr_reasoning_gym.catalog import DATASETS, RULES


def negated(gold: str) -> str:
    """The gold with its sign flipped ("5" -> "-5", "-5" -> "5")."""
    gold = gold.strip()
    return gold[1:] if gold.startswith("-") else "-" + gold


def one_per_kind() -> list[str]:
    """One dataset per comparison kind (the first by name), sorted: every reading of an answer covered."""
    by_kind: dict[str, str] = {}
    for name in DATASETS:
        by_kind.setdefault(RULES[name].kind, name)
    return sorted(by_kind.values())


@cache
def inline_env(name: str) -> rlvr_envs.Env:
    """``rg-<name>`` verified in this process (the tables verify hundreds of short answers)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlvr_envs.make(f"rg-{name}", isolation="inline")
