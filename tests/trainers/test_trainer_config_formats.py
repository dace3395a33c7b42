"""`train`'s config resolves `prompt_format` through each env's class and exposes `on_error`.

A family's own format (ifeval's `verbatim`) lives on its env class (`Env.prompt_formats`), not in
the core's global table: the config used to check only the global table and refused it.
"""

from __future__ import annotations

import pytest

from rlvr_trainers.config import FIELD_DOCS, ConfigError, TrainerConfig
from rlvr_trainers.train import _make_envs, env_reward

BASE = {"model": "some/model"}


def test_an_env_owned_format_is_accepted_and_reaches_the_env():
    config = TrainerConfig(envs=["ifeval-synth-v0"], prompt_format="verbatim", **BASE)
    router, _ = _make_envs(config, None)
    assert [env.prompt_format.name for env in router.envs.values()] == ["verbatim"]


def test_an_env_owned_format_on_an_env_that_lacks_it_names_that_env():
    with pytest.raises(ConfigError) as info:
        TrainerConfig(envs=["ifeval-synth-v0", "math-arith-v1"], prompt_format="verbatim", **BASE)
    assert "prompt_format" in str(info.value) and "math-arith-v1" in str(info.value)
    with pytest.raises(ConfigError, match="math-arith-v1"):
        TrainerConfig(envs=["ifeval-synth-v0"], eval_envs=["math-arith-v1"], prompt_format="verbatim", **BASE)


@pytest.mark.parametrize("name", ["xml", "", "VERBATIM ", "ответ", "x" * 10_000])
def test_an_unknown_format_is_a_config_error(name):
    with pytest.raises(ConfigError, match="prompt_format"):
        TrainerConfig(envs=["ifeval-synth-v0"], prompt_format=name, **BASE)


def test_a_core_format_still_works_everywhere():
    config = TrainerConfig(envs=["ifeval-synth-v0", "math-arith-v1"], prompt_format="r1", **BASE)
    router, _ = _make_envs(config, None)
    assert {env.prompt_format.name for env in router.envs.values()} == {"r1"}


def test_an_unknown_env_id_is_left_to_make():
    config = TrainerConfig(envs=["no-such-env-v0"], prompt_format="r1", **BASE)
    with pytest.raises(Exception, match="no-such-env"):
        _make_envs(config, None)


def test_on_error_is_a_documented_field_that_reaches_the_reward():
    assert "on_error" in FIELD_DOCS
    for policy in ("fail", "skip", "zero"):
        config = TrainerConfig(envs=["math-arith-v1"], on_error=policy, **BASE)
        router, _ = _make_envs(config, None)
        assert env_reward(config, router).failures.on_error == policy
    assert TrainerConfig(envs=["math-arith-v1"], **BASE).on_error == "fail"


@pytest.mark.parametrize("value", ["ignore", "", None, 0])
def test_a_bad_on_error_is_a_config_error(value):
    with pytest.raises(ConfigError, match="on_error"):
        TrainerConfig(envs=["math-arith-v1"], on_error=value, **BASE)
