"""A few real training steps on a tiny model built in the test (CPU, no downloads)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")

import torch  # noqa: E402

import rlvr_envs  # noqa: E402
from rlvr_envs.adapters.trl import prompt_for  # noqa: E402
from rlvr_trainers.config import TrainerConfig  # noqa: E402
from rlvr_trainers.tiny import build_model, build_tokenizer  # noqa: E402
from rlvr_trainers.train import run  # noqa: E402


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=2, prompt_format="answer_tag")


def _tiny(env):
    tasks = env.sample(200, seed=0)
    corpus = [prompt_for(env, t, conversational=False) + env.gold_completion(t) for t in tasks]
    tokenizer = build_tokenizer(corpus, vocab_size=300)
    return build_model(tokenizer, hidden_size=32, layers=1, heads=2), tokenizer


def _config(tmp_path, **changes):
    base = dict(envs=["math-arith-v0"], model="(in memory)", preset="dapo", conversational=False, num_generations=4,
                prompts_per_step=2, max_new_tokens=8, learning_rate=1e-3, max_steps=3, eval_size=4, eval_every=2,
                eval_k=2, output_dir=str(tmp_path / "run"), device="cpu")
    return TrainerConfig(**{**base, **changes})


def _snapshot(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _changed(before, model):
    return [k for k, v in model.state_dict().items() if not torch.equal(before[k], v)]


def test_training_steps_change_weights_and_log_metrics(tmp_path, arith):
    torch.manual_seed(0)
    model, tokenizer = _tiny(arith)
    before = _snapshot(model)
    # A reward that always has variance inside a group, so every step has a gradient.
    def alternating(prompts=None, completions=(), **_):
        return [float(i % 2) for i in range(len(completions))]

    summary = run(_config(tmp_path), model=model, tokenizer=tokenizer, envs=[arith], reward_funcs=[alternating],
                  quiet=True)
    assert _changed(before, model), "three optimisation steps left every weight unchanged"
    records = [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]
    assert [r["step"] for r in records] == [1, 2, 3]
    for r in records:
        assert r["reward_mean"] == pytest.approx(0.5)
        assert r["frac_groups_dropped"] == 0.0
        assert r["mean_completion_length"] > 0
        assert r["generation_tokens_per_s"] > 0
    assert "heldout_pass@1" in records[1]
    assert set(summary["before"]) >= {"pass@1", "pass@2"} and set(summary["after"]) >= {"pass@1", "pass@2"}
    assert (tmp_path / "run" / "curves.png").stat().st_size > 1000
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["steps"] == 3


def test_env_reward_end_to_end_with_dynamic_sampling(tmp_path, arith):
    """The real env reward: an untrained model earns nothing, every group is flat and dropped,
    so the loss is empty and the weights stay as they were."""
    torch.manual_seed(1)
    model, tokenizer = _tiny(arith)
    before = _snapshot(model)
    summary = run(_config(tmp_path, max_steps=2, eval_every=0, plot=False), model=model, tokenizer=tokenizer,
                  envs=[arith], quiet=True)
    records = [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]
    assert all(r["reward_mean"] <= 0.0 for r in records)  # wrong answers, possibly minus the length penalty
    flat = [r for r in records if r["frac_reward_zero_std"] == 1.0]
    assert all(r["frac_groups_dropped"] == 1.0 for r in flat)
    if len(flat) == len(records):
        assert not _changed(before, model), "dropped groups must not move the weights"
