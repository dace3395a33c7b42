"""`train` gives each env its own make() arguments: a `data=` meant for one env never reaches another.

Issue 27: `envs: [math-500-v0, math-gsm8k-v0]` with `env_kwargs: {data: math500.jsonl}` trained
"gsm8k" on MATH-500 rows. The flat form is now refused with several envs, the keyed form goes
to its env only, and an argument an env cannot take is a config error naming both.
"""

from __future__ import annotations

import json

import pytest

import rlvr_envs
from rlvr_trainers.config import ConfigError, TrainerConfig, per_env_kwargs
from rlvr_trainers.train import _make_envs

BASE = {"model": "some/model"}


@pytest.fixture()
def rows(tmp_path):
    path = tmp_path / "mine.jsonl"
    items = [{"problem": "Compute 2+3.", "answer": "5"}, {"problem": "Compute 40+2.", "answer": "42"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    return path


def test_a_flat_data_argument_with_two_envs_is_refused_naming_the_fix(rows):
    with pytest.raises(ConfigError) as info:
        TrainerConfig(**BASE, envs=["math", "math-arith"], env_kwargs={"data": str(rows)})
    message = str(info.value)
    assert "env_kwargs" in message and "math: {" in message and "which env" in message


def test_keyed_arguments_reach_their_env_only(rows):
    config = TrainerConfig(
        **BASE,
        envs=["math", "math-arith"],
        env_kwargs={"math": {"data": str(rows)}, "math-arith": {"level": 1}},
    )
    router, eval_envs = _make_envs(config, None)
    made = {env_id.rsplit("-v", 1)[0]: env for env_id, env in router.envs.items()}
    assert [t.prompt for t in made["math"].tasks] == ["Compute 2+3.", "Compute 40+2."]
    assert made["math-arith"].level == 1 and eval_envs == []


def test_the_flat_form_still_serves_a_single_env(rows):
    router, _ = _make_envs(TrainerConfig(**BASE, envs=["math"], env_kwargs={"data": str(rows)}), None)
    assert [len(e.tasks) for e in router.envs.values()] == [2]


def test_an_argument_the_env_cannot_take_names_the_env_and_the_argument(rows):
    config = TrainerConfig(
        **BASE,
        envs=["math", "math-arith"],
        env_kwargs={"math": {"data": str(rows)}, "math-arith": {"data": "x"}},
    )
    with pytest.raises(ConfigError) as info:
        _make_envs(config, None)
    assert "env_kwargs: math-arith cannot take the argument 'data'" in str(info.value)


def test_an_option_a_family_checks_itself_is_a_config_error_naming_the_env():
    config = TrainerConfig(**BASE, envs=["math-arith", "rg-chain_sum"], env_kwargs={"rg-chain_sum": {"max_digit": 3}})
    with pytest.raises(ConfigError, match=r"env_kwargs: rg-chain_sum: .*max_digit"):
        _make_envs(config, None)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"math-gsm8k-v0": {"data": "x"}}, "'math-gsm8k-v0' is not one of envs"),
        ({"math-arith": {"level": 1}, "level": 2}, "mixes per-env entries"),
        ({"math-arith": 3}, "must be a mapping"),
        ({"math-arith": {"level": 1}, "math-arith-v1": {"level": 2}}, "given twice"),
    ],
)
def test_malformed_keyed_arguments_are_config_errors(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        per_env_kwargs(["math-arith-v1", "math-v1"], kwargs, "env_kwargs", "envs")


def test_eval_env_kwargs_are_keyed_the_same_way(rows):
    with pytest.raises(ConfigError, match="eval_env_kwargs"):
        TrainerConfig(**BASE, envs=["math-arith"], eval_envs=["math", "rg-chain_sum-v0"], eval_env_kwargs={"data": "x"})
    config = TrainerConfig(
        **BASE, envs=["math-arith"], eval_envs=["math"], eval_env_kwargs={"math": {"data": str(rows)}}
    )
    _, eval_envs = _make_envs(config, None)
    assert [e.env_id for e in eval_envs] == [rlvr_envs.registry.resolve("math").id] and len(eval_envs[0].tasks) == 2


def test_help_config_prints_every_field_without_a_config(capsys):
    import dataclasses

    from rlvr_envs.cli import main

    with pytest.raises(SystemExit) as done:
        main(["train", "--help-config"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for f in dataclasses.fields(TrainerConfig):
        assert f"\n{f.name} (default " in out, f.name
    assert "math-500-v0: {data: math500.jsonl}" in out
