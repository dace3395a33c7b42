"""The trainer's fixes and features on a tiny model (CPU): fp32 master weights under bf16, flat
groups judged on correctness (a None is no variance), answers kept out of logs, mixtures with
per-env metrics, held-out envs, checkpoints and resume, a self-describing run folder."""

from __future__ import annotations

import json
import logging

import pytest

pytest.importorskip("trl")

import torch

import rlvr_envs
from rlvr_envs.adapters.trl import prompt_for
from rlvr_trainers.config import ConfigError, TrainerConfig
from rlvr_trainers.tiny import build_model, build_tokenizer
from rlvr_trainers.train import run


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=2, prompt_format="answer_tag")


def _tiny(env, seed=0):
    tasks = env.sample(200, seed=0)
    corpus = [prompt_for(env, t, conversational=False) + env.gold_completion(t) for t in tasks]
    tokenizer = build_tokenizer(corpus, vocab_size=300)
    return build_model(tokenizer, hidden_size=32, layers=1, heads=2, seed=seed), tokenizer


def _config(tmp_path, **changes):
    base = dict(
        envs=["math-arith-v4"],
        model="(in memory)",
        preset="grpo",
        conversational=False,
        num_generations=4,
        prompts_per_step=2,
        max_new_tokens=6,
        learning_rate=1e-3,
        max_steps=1,
        eval_size=0,
        eval_every=0,
        eval_k=2,
        output_dir=str(tmp_path / "run"),
        device="cpu",
        plot=False,
    )
    return TrainerConfig(**{**base, **changes})


def _records(summary):
    return [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]


def _alternating(prompts=None, completions=(), **_):
    return [float(i % 2) for i in range(len(completions))]


def _changed_tensors(model, before):
    return {k for k, v in model.named_parameters() if not torch.equal(before[k], v.detach())}


# -- fp32 master weights ----------------------------------------------------------------------


def test_loading_keeps_fp32_weights_for_a_gpu_run(tmp_path, arith):
    from rlvr_trainers.train import _load_model

    model, tokenizer = _tiny(arith)
    model.save_pretrained(tmp_path / "m")
    tokenizer.save_pretrained(tmp_path / "m")
    cfg = _config(tmp_path, model=str(tmp_path / "m"), bf16=True)
    loaded, _ = _load_model(cfg, "cuda")  # the dtype choice; nothing is moved to a device here
    assert {p.dtype for p in loaded.parameters()} == {torch.float32}


def test_a_1e6_step_with_the_gpu_settings_moves_every_trainable_tensor(tmp_path, arith):
    # bf16=True (autocast) as on a GPU, the recipe's learning rate. Weights held in bf16 (the old
    # loading) lose most such updates to rounding: the contrast shows the test can fail.
    def one_step(dtype):
        torch.manual_seed(0)
        model, tokenizer = _tiny(arith)
        model.to(dtype)
        before = {k: v.detach().clone() for k, v in model.named_parameters()}
        run(
            _config(tmp_path / str(dtype), learning_rate=1e-6, bf16=True),
            model=model,
            tokenizer=tokenizer,
            envs=[arith],
            reward_funcs=[_alternating],
            quiet=True,
        )
        return _changed_tensors(model, before), set(before)

    changed, names = one_step(torch.float32)
    assert changed == names, f"unchanged after a 1e-6 step: {sorted(names - changed)}"
    changed_bf16, _ = one_step(torch.bfloat16)
    assert len(changed_bf16) < len(names), "bf16 weights were expected to lose small updates"


# -- TRL versions -----------------------------------------------------------------------------


def test_trl_version_check_fails_loudly_outside_the_checked_minors(monkeypatch):
    import trl

    from rlvr_trainers.trainer import ALLOW_ENV, SUPPORTED_TRL, TRLVersionError, check_trl_version

    monkeypatch.delenv(ALLOW_ENV, raising=False)
    assert check_trl_version() == trl.__version__
    for unknown in ("1.99.0", "2.0.0", "1.5.1", "0.29.1", "garbage"):
        with pytest.raises(TRLVersionError, match="checked against TRL"):
            check_trl_version(unknown)
    monkeypatch.setenv(ALLOW_ENV, "1")
    with pytest.warns(RuntimeWarning):
        assert check_trl_version("1.99.0") == "1.99.0"
    # The distribution's pin says the same as the check.
    from pathlib import Path

    pyproject = (Path(__file__).resolve().parents[2] / "trainers" / "pyproject.toml").read_text()
    (lo_major, lo_minor), (hi_major, hi_minor) = SUPPORTED_TRL
    assert f'"trl>={lo_major}.{lo_minor},<{hi_major}.{hi_minor + 1}"' in pyproject


# -- flat groups, None rewards, logs ----------------------------------------------------------


def test_flat_groups_ignore_none_and_judge_scored_rows():
    from rlvr_trainers.refill import flat_groups

    nan = float("nan")
    values = torch.tensor([1, 1, 1, 1, 0, 1, 0, 1, 1, nan, 1, 1, nan, nan, nan, nan, 0, nan, 1, nan])
    assert flat_groups(values, 4).tolist() == [True, False, True, True, False]


def test_batch_advantages_are_normalised_over_the_merged_batch():
    from rlvr_trainers.refill import copy_rows, group_advantages

    group = 4
    # Three informative groups and one flat; the refill batch had one informative group among flat ones.
    original = torch.tensor([0.0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1])
    fresh = torch.tensor([0.0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    merged = copy_rows(original, fresh, [3], [0], group)
    assert merged[12:].tolist() == [0, 1, 0, 1]
    adv = group_advantages(merged, group, "batch")
    # Group 0 and the refilled group 3 have the same rewards, so the same advantages.
    assert torch.allclose(adv[:4], adv[12:])
    # What the old code trained on: the refilled rows kept the advantages of their own batch.
    stale = group_advantages(fresh, group, "batch")[:4]
    assert stale.abs().max() > 1.5 * adv[12:].abs().max()
    # "group" scaling and "none" match a hand computation.
    g = group_advantages(merged, group, "group")
    assert torch.allclose(g[:4], torch.tensor([-1.0, 1, -1, 1]) * 0.5 / (0.5773503 + 1e-4), atol=1e-4)
    assert torch.allclose(group_advantages(merged, group, "none")[:4], torch.tensor([-0.5, 0.5, -0.5, 0.5]))


def test_a_group_whose_only_variance_is_a_none_is_dropped_and_the_answer_stays_out_of_logs(tmp_path, arith, caplog):
    torch.manual_seed(1)
    model, tokenizer = _tiny(arith)
    before = {k: v.detach().clone() for k, v in model.named_parameters()}

    def one_none(prompts=None, completions=(), **_):
        return [None] + [1.0] * (len(completions) - 1)

    with caplog.at_level(logging.WARNING):
        summary = run(
            _config(tmp_path, preset="dapo", refill_rounds=0),
            model=model,
            tokenizer=tokenizer,
            envs=[arith],
            reward_funcs=[one_none],
            quiet=True,
        )
    assert [r["frac_groups_dropped"] for r in _records(summary)] == [1.0]
    assert not _changed_tensors(model, before)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "no reward from any reward function" in logged
    assert '"answer"' not in logged and "'task'" not in logged


def test_flat_groups_are_judged_on_correctness_not_the_shaped_reward(tmp_path, arith):
    from rlvr_envs.types import Reason, Verdict

    class LengthShaped:
        """Every completion wrong, rewards varying with length (an over-length penalty, say)."""

        __name__ = "length_shaped"

        def __init__(self):
            self.last_verdicts = []

        def __call__(self, prompts=None, completions=(), completion_ids=(), **_):
            self.last_verdicts = [Verdict(reward=0.0, passed=False, reason=Reason.WRONG) for _ in completions]
            return [-0.1 * (i % 2) for i in range(len(completions))]

    dropped = {}
    for metric in ("correctness", "reward"):
        torch.manual_seed(2)
        model, tokenizer = _tiny(arith)
        summary = run(
            _config(tmp_path / metric, preset="dapo", refill_rounds=0, dynamic_sampling_metric=metric),
            model=model,
            tokenizer=tokenizer,
            envs=[arith],
            reward_funcs=[LengthShaped()],
            quiet=True,
        )
        dropped[metric] = _records(summary)[0]["frac_groups_dropped"]
    assert dropped == {"correctness": 1.0, "reward": 0.0}


# -- checks before any download -----------------------------------------------------------------


def test_env_ids_and_device_are_checked_before_the_model_loads(tmp_path, monkeypatch):
    import rlvr_trainers.train as train_module

    def no_download(*_, **__):
        raise AssertionError("the model was loaded before the config was checked")

    monkeypatch.setattr(train_module, "_load_model", no_download)
    with pytest.raises(Exception, match="no-such-env"):
        run(_config(tmp_path, envs=["no-such-env-v0"], model="org/not-a-model"))
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="device: cuda"):
            run(_config(tmp_path, device="cuda", model="org/not-a-model"))
    with pytest.raises(ConfigError, match="eval_envs"):
        run(_config(tmp_path, eval_envs=["math-arith-v4"], model="org/not-a-model"))


def test_chat_template_kwargs_reach_the_prompts_and_the_trl_arguments(tmp_path, arith):
    from rlvr_envs.adapters.routing import EnvRouter
    from rlvr_trainers.train import build_grpo_args, heldout_items

    _, tokenizer = _tiny(arith)
    tokenizer.chat_template = (
        "{% for m in messages %}{{ m['content'] }}{% endfor %}"
        "{% if enable_thinking is defined and not enable_thinking %}<nothink>{% endif %}"
    )
    cfg = _config(tmp_path, eval_size=3, chat_template_kwargs={"enable_thinking": False})
    items = heldout_items(EnvRouter(arith), cfg, True, tokenizer)
    assert len(items) == 3 and all(p.endswith("<nothink>") for _, _, p in items)
    assert build_grpo_args(cfg, "cpu").chat_template_kwargs == {"enable_thinking": False}
    plain = heldout_items(EnvRouter(arith), cfg.replace(chat_template_kwargs={}), True, tokenizer)
    assert not any(p.endswith("<nothink>") for _, _, p in plain)


# -- mixtures, held-out envs -------------------------------------------------------------------


def test_a_mixture_logs_per_env_metrics_and_held_out_envs_are_evaluated(tmp_path, arith):
    from rlvr_envs.adapters.trl import reward_function

    torch.manual_seed(4)
    model, tokenizer = _tiny(arith)
    chain = rlvr_envs.make("rg-chain_sum", prompt_format="answer_tag")
    fn = reward_function([arith, chain])
    cfg = _config(
        tmp_path,
        envs=["math-arith-v4", "rg-chain_sum-v0"],
        env_weights=[3, 1],
        prompts_per_step=4,
        max_steps=2,
        eval_size=3,
        eval_every=1,
        eval_every_k=2,
        eval_envs=["rg-basic_arithmetic-v0"],
        prompt_format="answer_tag",
        max_new_tokens=3,
        plot=True,
    )
    summary = run(cfg, model=model, tokenizer=tokenizer, envs=[arith, chain], reward_funcs=[fn], quiet=True)
    records = _records(summary)
    for env_id in ("math-arith-v4", "rg-chain_sum-v0"):
        for what in ("reward", "pass@1", "length", "rows"):
            assert all(f"env/{env_id}/{what}" in r for r in records), (env_id, what, records[0].keys())
    rows = sum(r["env/math-arith-v4/rows"] for r in records), sum(r["env/rg-chain_sum-v0/rows"] for r in records)
    assert rows[0] > rows[1] > 0  # the 3:1 mixture
    assert all(0.0 <= r["frac_truncated"] <= 1.0 for r in records)
    first = records[0]
    assert "heldout/rg-basic_arithmetic-v0/pass@1" in first and "heldout/rg-basic_arithmetic-v0/pass@2" in first
    for result in (summary["before"], summary["after"]):
        assert set(result["by_env"]) == {"math-arith-v4", "rg-chain_sum-v0", "rg-basic_arithmetic-v0"}
        assert result["by_env"]["rg-basic_arithmetic-v0"]["n_tasks"] == 3
    assert (tmp_path / "run" / "curves.png").stat().st_size > 1000
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert [(e["id"], e["role"]) for e in info["envs"]] == [
        ("math-arith-v4", "train"),
        ("rg-chain_sum-v0", "train"),
        ("rg-basic_arithmetic-v0", "eval"),
    ]


# -- checkpoints and the run folder ------------------------------------------------------------


def test_checkpoints_resume_and_the_run_folder_describes_the_run(tmp_path, arith):
    torch.manual_seed(5)
    model, tokenizer = _tiny(arith)
    cfg = _config(tmp_path, max_steps=2, save_steps=1, save_total_limit=1)
    first = run(cfg, model=model, tokenizer=tokenizer, envs=[arith], reward_funcs=[_alternating], quiet=True)
    out = tmp_path / "run"
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-2"]
    assert (out / "checkpoint-2" / "optimizer.pt").exists() or (out / "checkpoint-2" / "optimizer.bin").exists()
    info = json.loads((out / "run.json").read_text())
    assert info["config"]["save_steps"] == 1 and info["envs"][0] == {
        "id": "math-arith-v4",
        "role": "train",
        "family": "math",
        "version": 4,
        "data_source": info["envs"][0]["data_source"],
        "prompt_format": "answer_tag",
    }
    assert info["versions"]["trl"] and info["versions"]["torch"] and "commit" in info["git"]
    assert first["final_step"] == 2

    # Resume from the latest checkpoint with a longer schedule: steps continue from 2.
    model2, _ = _tiny(arith, seed=9)
    resumed = run(
        cfg.replace(max_steps=3, resume_from_checkpoint="latest"),
        model=model2,
        tokenizer=tokenizer,
        envs=[arith],
        reward_funcs=[_alternating],
        quiet=True,
    )
    assert resumed["resumed_from"].endswith("checkpoint-2") and resumed["final_step"] == 3
    assert [r["step"] for r in _records(resumed)] == [1, 2, 3]
    state = json.loads((out / "checkpoint-3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3
    assert json.loads((out / "run.json").read_text())["resumes"]
    with pytest.raises(ConfigError, match="resume_from_checkpoint"):
        run(
            cfg.replace(output_dir=str(tmp_path / "empty"), resume_from_checkpoint="latest"),
            model=model2,
            tokenizer=tokenizer,
            envs=[arith],
            reward_funcs=[_alternating],
            quiet=True,
        )


# -- the configuration surface for GPUs (checked as TRL arguments; no GPU here) -------------------


def test_gpu_knobs_become_trl_arguments(monkeypatch):
    from rlvr_trainers.train import grpo_kwargs

    base = dict(envs=["math-arith-v4"], model="m", prompts_per_step=4, num_generations=4)
    kw = grpo_kwargs(
        TrainerConfig(
            **base,
            use_vllm=True,
            vllm_mode="server",
            vllm_server_host="10.0.0.2",
            vllm_server_port=8123,
            top_k=20,
            min_p=0.05,
            repetition_penalty=1.1,
            steps_per_generation=3,
            per_device_batch_size=8,
        ),
        "cuda",
    )
    assert (kw["use_vllm"], kw["vllm_mode"], kw["vllm_server_host"], kw["vllm_server_port"]) == (
        True,
        "server",
        "10.0.0.2",
        8123,
    )
    assert "vllm_gpu_memory_utilization" not in kw
    assert (kw["top_k"], kw["min_p"], kw["repetition_penalty"]) == (20, 0.05, 1.1)
    # 16 completions per optimiser step in micro-batches of 8: 2 accumulation steps, 3 optimiser steps
    # per generation = 6 micro-batches per generation in TRL's count.
    assert (kw["gradient_accumulation_steps"], kw["steps_per_generation"]) == (2, 6)
    assert kw["bf16"] is True and kw["use_cpu"] is False
    colocate = grpo_kwargs(TrainerConfig(**base, use_vllm=True, vllm_tensor_parallel_size=2), "cuda")
    assert colocate["vllm_mode"] == "colocate" and colocate["vllm_tensor_parallel_size"] == 2
    # Under accelerate with 2 processes, prompts_per_step stays the global count.
    monkeypatch.setenv("WORLD_SIZE", "2")
    kw2 = grpo_kwargs(TrainerConfig(**base), "cuda")
    assert kw2["per_device_train_batch_size"] * 2 * kw2["gradient_accumulation_steps"] == 16
    assert grpo_kwargs(TrainerConfig(**base, save_steps=25), "cpu")["save_strategy"] == "steps"
    assert grpo_kwargs(TrainerConfig(**base), "cpu")["save_strategy"] == "no"


def test_lora_trains_only_the_adapter(tmp_path, arith):
    pytest.importorskip("peft")
    torch.manual_seed(6)
    model, tokenizer = _tiny(arith)
    summary = run(
        _config(tmp_path, lora={"r": 4, "alpha": 8, "target_modules": ["q_proj", "v_proj"]}),
        model=model,
        tokenizer=tokenizer,
        envs=[arith],
        reward_funcs=[_alternating],
        quiet=True,
    )
    trained = summary["model"]
    names = [n for n, p in trained.named_parameters() if p.requires_grad]
    assert names and all("lora_" in n for n in names)


def test_bundled_accelerate_configs_parse():
    from importlib import resources

    import yaml

    folder = resources.files("rlvr_trainers.recipes") / "accelerate"
    stages = {}
    for name in ("zero2.yaml", "zero3.yaml", "multi_gpu.yaml"):
        data = yaml.safe_load((folder / name).read_text())
        stages[name] = data.get("deepspeed_config", {}).get("zero_stage")
        assert data["num_processes"] >= 1
    assert stages == {"zero2.yaml": 2, "zero3.yaml": 3, "multi_gpu.yaml": None}


def test_gpu_smoke_names_what_the_machine_lacks(tmp_path, arith, capsys):
    from rlvr_trainers import gpu_smoke

    missing = tmp_path / "no-model"
    missing.mkdir()
    (missing / "config.json").write_text("{}")
    assert gpu_smoke.main(["--model", str(missing), "--check-only"]) == 2
    out = capsys.readouterr().out
    assert "[MISSING] model" in out and "*.safetensors" in out and "tokenizer.json" in out
    if not torch.cuda.is_available():
        assert "[MISSING] torch + GPU" in out
    model, tokenizer = _tiny(arith)
    model.save_pretrained(tmp_path / "m")
    tokenizer.save_pretrained(tmp_path / "m")
    checks = {c.name: c for c in gpu_smoke.machine_checks(str(tmp_path / "m"), use_vllm=True)}
    assert checks["model"].ok and checks["trl"].ok and checks["env"].ok
    if gpu_smoke._version("vllm") is None:
        assert not checks["vllm"].ok and "not installed" in checks["vllm"].detail


def test_refill_recomputes_batch_advantages_over_the_merged_batch(tmp_path, arith, monkeypatch):
    import rlvr_trainers.refill as refill

    calls = []
    original = refill.group_advantages

    def recording(rewards, group_size, scale_rewards):
        calls.append((rewards.clone(), scale_rewards))
        return original(rewards, group_size, scale_rewards)

    monkeypatch.setattr(refill, "group_advantages", recording)

    def by_prompt(prompts=None, completions=(), **_):
        # A prompt whose first number is even gets a flat group, an odd one a group with variance.
        return [1.0 if int(p.split()[2]) % 2 == 0 else float(i % 2) for i, p in enumerate(prompts)]

    torch.manual_seed(7)
    model, tokenizer = _tiny(arith)
    summary = run(
        _config(tmp_path, preset="dapo", scale_rewards="batch", refill_rounds=8, prompts_per_step=4, max_steps=2),
        model=model,
        tokenizer=tokenizer,
        envs=[arith],
        reward_funcs=[by_prompt],
        quiet=True,
    )
    refilled = sum(r["frac_groups_refilled"] for r in _records(summary))
    assert refilled > 0 and calls, "no refill happened, so nothing was checked"
    for rewards, scale in calls:
        assert scale == "batch"
        # The merged batch is what was normalised: after the refill no group is flat any more.
        assert not refill.flat_groups(rewards, 4).any()
