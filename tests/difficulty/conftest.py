from __future__ import annotations

import pytest

import rlvr_envs
from tests.difficulty.helpers_difficulty import TOY_IDS


@pytest.fixture(autouse=True)
def _forget_toy_ids():
    """Tests here register toy ids; drop them afterwards so other suites' listings stay as they were."""
    yield
    for env_id in TOY_IDS:
        rlvr_envs.registry._specs.pop(env_id, None)
