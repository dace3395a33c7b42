"""`rlvr-envs train` on episodes: the config's episode fields, their checks, and a run from YAML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_trainers.config import ConfigError, TrainerConfig, config_help, load_config

BASE = {"envs": ["math-arith-v1"], "model": "m"}


def cfg(**fields):
    return TrainerConfig.from_dict({**BASE, **fields})


def test_episode_fields_default_to_a_single_turn_run():
    config = cfg()
    assert config.tools is None and config.max_turns is None
    assert cfg(tools=[]).tools == [] and cfg(tools=["calculator"], max_turns=3, tool_parser="json").max_turns == 3
    help_text = config_help()
    for name in ("tools", "max_turns", "tool_parser", "max_tool_calls", "max_generated_tokens", "max_wall_s"):
        assert f"\n{name} (default None)" in help_text


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"max_turns": 3}, "max_turns: an episode option, but tools is not set"),
        ({"tool_timeout_s": 2.0}, "tool_timeout_s: an episode option"),
        ({"tools": "calculator"}, "tools: a list of tool names"),
        ({"tools": ["calculator", "calculator"]}, "names a tool twice"),
        ({"tools": [3]}, "every entry must be a tool name"),
        ({"tools": ["calculater"]}, "unknown tool 'calculater'; installed tools: .*calculator"),
        ({"tools": ["calculator"], "tool_parser": "xml"}, "tool_parser: 'xml' is not one of"),
        ({"tools": ["calculator"], "max_turns": 0}, "max_turns: must be a positive integer"),
        ({"tools": ["calculator"], "max_turns": True}, "max_turns: must be a positive integer"),
        ({"tools": ["calculator"], "max_wall_s": -1}, "max_wall_s: must be a positive number"),
        ({"tools": ["calculator"], "max_generated_tokens": 2.5}, "max_generated_tokens: must be a positive integer"),
        ({"tools": ["calculator"], "episode_batch": 0}, "episode_batch: must be a positive integer"),
        ({"episode_batch": 4}, "episode_batch: an episode option, but tools is not set"),
        ({"tools": ["calculator"], "lora": {"r": 8}}, "lora: not available when training on episodes"),
        ({"tools": ["calculator"], "use_vllm": True}, "use_vllm: not available"),
        ({"tools": ["calculator"], "beta": 0.1}, "beta: not available"),
        ({"tools": ["calculator"], "num_iterations": 2}, "num_iterations: not available"),
        ({"tools": ["calculator"], "format_weight": 0.1}, "format_weight: not available"),
        ({"tools": ["calculator"], "save_steps": 5}, "save_steps: not available"),
        ({"tools": ["calculator"], "overlong_shaping": True}, "overlong_shaping: not available"),
        ({"tools": ["calculator"], "preset": "grpo"}, "loss_type: episodes train with DAPO's token-level loss"),
        ({"tools": ["calculator"], "scale_rewards": "batch"}, "scale_rewards: episodes scale advantages"),
        ({"tools": ["calculator"], "env_kwargs": {"max_turns": 2}}, "env_kwargs: 'max_turns' is an episode option"),
        (
            {"tools": ["calculator"], "env_kwargs": {"math-arith-v1": {"tools": ["python"]}}},
            "env_kwargs: 'tools' is an episode option",
        ),
    ],
)
def test_an_episode_config_that_cannot_run_names_its_field(fields, match):
    with pytest.raises(ConfigError, match=match):
        cfg(**fields)


def test_what_episodes_can_take_is_accepted():
    config = cfg(
        tools=["calculator"],
        max_turns=3,
        tool_parser="hermes",
        max_tool_calls=4,
        max_generated_chars=500,
        max_wall_s=30,
        tool_timeout_s=2.5,
        use_vllm=False,
        overlong_shaping=False,
        scale_rewards="none",
        dynamic_sampling=False,
    )
    assert config.tool_timeout_s == 2.5


def test_a_yaml_typo_in_an_episode_field_is_caught(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("envs: [math-arith-v1]\nmodel: m\ntools: [calculator]\nmax_turn: 3\n")
    with pytest.raises(ConfigError, match=r"max_turn \(did you mean max_turns\?\)"):
        load_config(path)


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    import rlvr_envs
    from rlvr_trainers.episode_rollout import SIMPLE_CHAT_TEMPLATE
    from rlvr_trainers.tiny import build_model, build_tokenizer

    folder = tmp_path_factory.mktemp("episode_model")
    env = rlvr_envs.make("math-arith", level=1)
    corpus = [f"{t.prompt} {t.answer}" for t in env.sample(60, seed=0)]
    corpus.append('<tool_call>{"name": "calculator", "arguments": {"expression": "1+2"}}</tool_call>')
    tokenizer = build_tokenizer(corpus, vocab_size=300)
    tokenizer.chat_template = SIMPLE_CHAT_TEMPLATE
    build_model(tokenizer, hidden_size=32, layers=1, heads=2).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _yaml(tmp_path: Path, model: Path, extra: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(
        f"envs: [math-arith-v1]\nenv_kwargs: {{level: 1}}\nmodel: {model}\nnum_generations: 2\nprompts_per_step: 2\n"
        f"max_new_tokens: 6\nmax_steps: 2\neval_size: 2\neval_k: 2\neval_every: 1\nlearning_rate: 0.001\n"
        f"output_dir: {tmp_path / 'out'}\n{extra}"
    )
    return path


def test_train_from_yaml_runs_episodes_with_the_configured_tools_and_budgets(tmp_path, saved_model, capsys):
    from rlvr_envs.cli import main

    config = _yaml(
        tmp_path, saved_model, "tools: [calculator]\nmax_turns: 2\nmax_generated_chars: 1\nsave_model: true\n"
    )
    assert main(["train", "--config", str(config)]) == 0
    out = tmp_path / "out"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "episodes" and summary["steps"] == 2 and summary["heldout_tasks"] == 2
    assert {"pass@1", "pass@2", "tool_use"} <= set(summary["before"]) and "pass@1" in summary["after"]
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [1, 2]
    # A one-character budget cuts every episode at its first turn: the budget reached the env,
    # and a cut episode pays nothing.
    for record in records:
        assert record["episodes/math-arith-v1/truncated"] == 1.0 and record["reward"] == 0.0
        assert {"episodes/math-arith-v1/tool_calls", "episodes/math-arith-v1/tool_errors", "heldout_pass@1"} <= set(
            record
        )
    run = json.loads((out / "run.json").read_text())
    assert run["config"]["tools"] == ["calculator"] and run["config"]["max_turns"] == 2
    assert (out / "curves.png").stat().st_size > 0 and (out / "final" / "config.json").exists()


def test_the_episode_env_gets_the_config_options(tmp_path, saved_model):
    from rlvr_trainers.episode_run import _make_episode_envs
    from rlvr_trainers.loading import load_model

    config = load_config(
        _yaml(tmp_path, saved_model, "tools: [calculator]\nmax_turns: 3\ntool_parser: json\nmax_tool_calls: 2\n")
    )
    _, tokenizer = load_model(config, "cpu")
    train, evaluated = _make_episode_envs(config.replace(max_generated_tokens=40), tokenizer, None)
    env = train["math-arith-v1"]
    try:
        assert list(env.tools) == ["calculator"] and env.max_turns == 3 and env.max_tool_calls == 2
        assert type(env.tool_parser).__name__ == "JsonParser" and env.max_generated_tokens == 40
        assert env.count_tokens("12 34") == len(tokenizer("12 34", add_special_tokens=False)["input_ids"])
        assert evaluated == {}
        assert not hasattr(env, "episode_batch")  # the trainer's own field, not an env option
    finally:
        env.close()


def test_env_ids_are_checked_before_the_model_loads(tmp_path, monkeypatch):
    import rlvr_trainers.episode_run as episode_run
    from rlvr_trainers.train import run

    def no_download(*_, **__):
        raise AssertionError("the model was loaded before the envs were made")

    monkeypatch.setattr(episode_run, "load_model", no_download)
    with pytest.raises(Exception, match="no-such-env"):
        run(cfg(envs=["no-such-env-v0"], model="org/not-a-model", tools=["calculator"]))
    with pytest.raises(ConfigError, match="env_kwargs: math-arith-v1 cannot take the argument 'colour'"):
        run(cfg(model="org/not-a-model", tools=["calculator"], env_kwargs={"colour": 1}))


def test_a_model_without_a_chat_template_is_refused_before_training(tmp_path, saved_model):
    from rlvr_trainers.loading import load_model
    from rlvr_trainers.train import run

    config = load_config(_yaml(tmp_path, saved_model, "tools: [calculator]\n"))
    model, tokenizer = load_model(config, "cpu")
    tokenizer.chat_template = None
    with pytest.raises(ConfigError, match="no chat template"):
        run(config, model=model, tokenizer=tokenizer)
    with pytest.raises(ConfigError, match="reward_funcs"):
        run(config, model=model, tokenizer=tokenizer, reward_funcs=[lambda **kw: [0.0]])
    assert not (tmp_path / "out" / "metrics.jsonl").exists()


def test_rewards_left_out_and_flat_groups():
    from rlvr_trainers.episode_train import advantages_and_kept

    adv, kept = advantages_and_kept([1.0, 0.0, None, 1.0, 1.0, 1.0], 3, scale=False, drop_flat=True)
    assert kept == [0, 1] and adv[:3] == [0.5, -0.5, 0.0] and adv[3:] == [0.0, 0.0, 0.0]
    adv, kept = advantages_and_kept([1.0, 1.0, 1.0, None, None, None], 3, scale=True, drop_flat=False)
    assert kept == [0, 1, 2] and adv == [0.0] * 6


def test_a_verifier_error_is_left_out_or_paid_zero_as_configured():
    from rlvr_envs.adapters.failures import FailurePolicy
    from rlvr_envs.types import Reason, Verdict
    from rlvr_trainers.episode_rollout import EpisodeRollout
    from rlvr_trainers.episode_train import episode_rewards

    ok = Verdict(reward=1.0, passed=True, reason=Reason.OK)
    broken = Verdict(reward=0.0, passed=False, reason=Reason.VERIFIER_ERROR)
    rollouts = [
        EpisodeRollout("e", [1], reward=1.0, verdict=ok),
        EpisodeRollout("e", [1], reward=0.0, verdict=broken),
        EpisodeRollout("e", [1], truncated=True),
    ]
    assert episode_rewards(rollouts, FailurePolicy("skip")) == [1.0, None, 0.0]
    assert episode_rewards(rollouts, FailurePolicy("zero")) == [1.0, 0.0, 0.0]
    assert episode_rewards(rollouts, FailurePolicy("skip"), reward=lambda r: 0.5) == [0.5, 0.5, 0.0]
