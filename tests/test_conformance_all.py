"""The conformance kit over every registered id, one test case per id.

Families whose presets need local data provide ``tests/<dir>/conformance.py`` with
``make_env(env_id) -> Env | None``; otherwise the id is made with ``rlvr_envs.make``.
"""

import importlib
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs.testing import check_env

TESTS = Path(__file__).parent
HOOKS = [importlib.import_module(f"tests.{p.parent.name}.conformance") for p in sorted(TESTS.glob("*/conformance.py"))]
FAST_IDS = ("math-arith-v0", "ifeval-synth-v1", "rg-chain_sum-v0")
"""Checked by `make test-fast`; the full suite checks every id (the others are marked slow)."""
IDS = [
    pytest.param(s.id, marks=() if s.id in FAST_IDS else pytest.mark.slow)
    for s in rlvr_envs.registry.latest()
    if not s.family.startswith("toy")
]


def make_for_conformance(env_id):
    for hook in HOOKS:
        env = hook.make_env(env_id)
        if env is not None:
            return env
    return rlvr_envs.make(env_id)


def test_every_installed_plugin_loads():
    assert rlvr_envs.registry.plugin_errors == {}


@pytest.mark.parametrize("env_id", IDS)
def test_conformance(env_id):
    env = make_for_conformance(env_id)
    report = check_env(env, n_tasks=2, seeds=(0,))
    assert report.tasks_checked >= 1


USER_DATA_IDS = ("math-v0", "code-python-v0", "lean-v0", "judge-v0", "ifeval-data-v0")
"""The ids that exist for the user's own data: each family's one, none with a preset dataset."""


@pytest.mark.parametrize("env_id", USER_DATA_IDS)
def test_a_user_data_id_without_data_raises_one_error_class_in_every_family(env_id):
    from rlvr_envs.errors import DataRequiredError

    with pytest.raises(DataRequiredError, match="data=") as caught:
        rlvr_envs.make(env_id)
    assert type(caught.value) is DataRequiredError  # not a family's subclass of it
