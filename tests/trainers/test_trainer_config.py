"""TrainerConfig: presets, validation with clear errors, YAML loading, and the TRL arguments it yields."""

from __future__ import annotations

import dataclasses

import pytest

from rlvr_trainers.config import FIELD_DOCS, PRESETS, ConfigError, TrainerConfig, config_reference, load_config

BASE = {"envs": ["math-arith-v0"], "model": "some/model"}


def test_every_field_is_documented():
    names = {f.name for f in dataclasses.fields(TrainerConfig)}
    assert names == set(FIELD_DOCS)
    reference = config_reference()
    assert all(f"`{name}`" in reference for name in names)


@pytest.mark.parametrize(
    ("preset", "loss", "eps", "eps_high", "scale", "overlong", "dynamic"),
    [
        ("grpo", "grpo", 0.2, 0.2, "group", False, False),
        ("dr_grpo", "dr_grpo", 0.2, 0.2, "none", False, False),
        ("dapo", "dapo", 0.2, 0.28, "group", True, True),
        ("cispo", "cispo", 0.2, 5.0, "group", False, False),
    ],
)
def test_presets_resolve(preset, loss, eps, eps_high, scale, overlong, dynamic):
    cfg = TrainerConfig(**BASE, preset=preset)
    assert [
        cfg.resolved(k)
        for k in ("loss_type", "epsilon", "epsilon_high", "scale_rewards", "overlong_shaping", "dynamic_sampling")
    ] == [loss, eps, eps_high, scale, overlong, dynamic]
    assert cfg.beta == 0.0
    # Every preset leaves truncated completions in the loss (verl's DAPO recipe does too).
    assert cfg.resolved("mask_truncated_completions") is False


def test_explicit_fields_win_over_the_preset():
    cfg = TrainerConfig(**BASE, preset="dapo", epsilon_high=0.3, dynamic_sampling=False)
    assert cfg.resolved("epsilon_high") == 0.3 and cfg.resolved("dynamic_sampling") is False
    assert cfg.resolved("epsilon") == PRESETS["dapo"]["epsilon"]


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"envs": []}, "envs"),
        ({"model": ""}, "model"),
        ({"preset": "ppo"}, "preset"),
        ({"loss_type": "sum"}, "loss_type"),
        ({"num_generations": 1}, "num_generations"),
        ({"prompts_per_step": 0}, "prompts_per_step"),
        ({"temperature": 0}, "temperature"),
        ({"top_p": 1.5}, "top_p"),
        ({"beta": -0.1}, "beta"),
        ({"env_weights": [1, 2]}, "env_weights"),
        ({"pass_rate_band": [0.2, 0.8]}, "profile"),
        ({"pass_rate_band": [0.9, 0.1], "profile": "p.db"}, "pass_rate_band"),
        ({"l_cache": 500, "max_new_tokens": 100}, "l_cache"),
        ({"prompt_format": "xml"}, "prompt_format"),
        ({"device": "tpu"}, "device"),
        ({"curriculum": {"speed": 2}}, "curriculum"),
        ({"per_device_batch_size": 3}, "per_device_batch_size"),
        ({"scale_rewards": "std"}, "scale_rewards"),
        ({"vllm_mode": "remote"}, "vllm_mode"),
        ({"dynamic_sampling_metric": "acc"}, "dynamic_sampling_metric"),
        ({"lora": {"rank": 8}}, "lora"),
        ({"lora": {"r": 0}}, "lora"),
        ({"top_k": -1}, "top_k"),
        ({"min_p": 2.0}, "min_p"),
        ({"repetition_penalty": 0}, "repetition_penalty"),
        ({"eval_every_k": 0}, "eval_every_k"),
        ({"eval_envs": [""]}, "eval_envs"),
        ({"save_total_limit": 0}, "save_total_limit"),
        ({"save_steps": -1}, "save_steps"),
        ({"steps_per_generation": 0}, "steps_per_generation"),
        ({"chat_template_kwargs": ["enable_thinking"]}, "chat_template_kwargs"),
    ],
)
def test_invalid_configs_name_the_field(changes, fragment):
    with pytest.raises(ConfigError, match=fragment):
        TrainerConfig.from_dict({**BASE, **changes})


def test_unknown_fields_suggest_the_right_name():
    with pytest.raises(ConfigError, match="did you mean temperature"):
        TrainerConfig.from_dict({**BASE, "temprature": 0.7})


def test_yaml_round_trip_and_overrides(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text(
        "envs: [math-arith-v0]\nmodel: m\npreset: dr_grpo\nnum_generations: 4\npass_rate_band: [0.2, 0.8]\n"
        "profile: store.db\n"
    )
    cfg = load_config(path, max_steps=7)
    assert (cfg.preset, cfg.num_generations, cfg.max_steps, cfg.pass_rate_band) == ("dr_grpo", 4, 7, (0.2, 0.8))
    assert TrainerConfig.from_dict(cfg.to_dict()) == cfg
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


def test_bundled_recipes_validate():
    from importlib import resources

    recipes = [p for p in resources.files("rlvr_trainers.recipes").iterdir() if p.name.endswith(".yaml")]
    assert recipes
    loaded = {recipe.name: load_config(str(recipe)) for recipe in recipes}
    qwen = loaded["qwen3_1.7b_spell_backward.yaml"]
    # Qwen3's thinking mode is a recipe choice, passed to the chat template.
    assert qwen.chat_template_kwargs == {"enable_thinking": False}
    assert (qwen.bf16, qwen.learning_rate, qwen.use_vllm, qwen.save_steps > 0) == (True, 1e-6, True, True)


def test_grpo_args_for_cpu_dapo():
    pytest.importorskip("trl")
    from rlvr_trainers.train import build_grpo_args

    cfg = TrainerConfig(
        **BASE,
        preset="dapo",
        prompts_per_step=4,
        num_generations=8,
        max_new_tokens=64,
        output_dir="/tmp/rlvr-test-args",
    )
    args = build_grpo_args(cfg, "cpu")
    assert (args.loss_type, args.epsilon, args.epsilon_high, args.beta) == ("dapo", 0.2, 0.28, 0.0)
    assert (
        args.use_cpu
        and not args.bf16
        and not getattr(args, "activation_checkpointing", args.gradient_checkpointing)
        and not args.use_vllm
    )
    assert args.per_device_train_batch_size * args.gradient_accumulation_steps == 32
    assert args.num_generations == 8 and args.max_completion_length == 64
    with pytest.raises(ValueError, match="GPU"):
        build_grpo_args(cfg.replace(use_vllm=True), "cpu")


def test_readme_documents_every_field():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "trainers" / "README.md").read_text(encoding="utf-8")
    missing = [f.name for f in dataclasses.fields(TrainerConfig) if f"| `{f.name}` |" not in readme]
    assert not missing, f"trainers/README.md lacks {missing}; paste rlvr_trainers.config.config_reference()"
