"""catalog.HACKABLE: datasets whose reward a policy earns without solving the task.

Each entry states a measurement; the test re-measures it (so an upgrade of reasoning-gym that
closes the hole fails here and the entry can go), and checks that rg-composite-v1's default mix
leaves such datasets out while v0 (deprecated) and an explicit ``datasets=`` still reach them.
"""

from __future__ import annotations

import re
import warnings

import pytest

import rlvr_envs
from rlvr_envs.registration import DeprecatedEnvWarning
from rlvr_reasoning_gym.catalog import DATASETS, HACKABLE

_PREMISE = re.compile(r"^\s*\.?1\.\s*(.+?)\s*$", re.M)


def test_hackable_names_are_registered_datasets():
    assert set(HACKABLE) <= set(DATASETS)
    for name, why in HACKABLE.items():
        assert len(why) > 40, name


def test_propositional_logic_pays_a_premise_copied_back():
    # The measurement behind the entry: the policy's shortcut is "copy premise 1".
    env = rlvr_envs.make("rg-propositional_logic", isolation="inline")
    tasks = env.sample(60, seed=7)
    copies = []
    for task in tasks:
        found = _PREMISE.search(task.prompt)
        assert found is not None, task.prompt[-300:]
        copies.append(f"<answer>{found.group(1)}</answer>")
    paid = sum(v.reward == 1.0 for v in env.verify_batch(tasks, copies))
    assert paid >= 0.4 * len(tasks), paid


def test_composite_default_mix_leaves_hackable_datasets_out():
    env = rlvr_envs.make("rg-composite", isolation="inline", size=4)
    assert set(env.weights) == set(DATASETS) - set(HACKABLE)
    drawn = {t.answer["dataset"] for t in env.sample(300, seed=3)}
    assert not drawn & set(HACKABLE)
    assert "hackable" in rlvr_envs.registry.resolve("rg-propositional_logic").description.lower()


def test_v0_and_explicit_datasets_still_reach_them():
    with pytest.warns(DeprecatedEnvWarning, match="rg-composite-v1"):
        old = rlvr_envs.make("rg-composite-v0", isolation="inline", size=4)
    assert set(old.weights) == set(DATASETS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mixed = rlvr_envs.make("rg-composite", datasets=["propositional_logic", "chain_sum"], isolation="inline")
    assert set(mixed.weights) == {"propositional_logic", "chain_sum"}
    custom = rlvr_envs.make("rg-composite", leave_out=["chain_sum"], isolation="inline", size=4)
    assert "chain_sum" not in custom.weights and "propositional_logic" in custom.weights


def test_leave_out_names_are_checked():
    with pytest.raises(rlvr_envs.ConfigurationError):
        rlvr_envs.make("rg-composite", leave_out=["no_such_dataset"])
