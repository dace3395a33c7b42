"""A few real training steps on a tiny model built in the test (CPU, no downloads)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")

import torch

import rlvr_envs
from rlvr_envs.adapters.trl import prompt_for
from rlvr_trainers.config import TrainerConfig
from rlvr_trainers.tiny import build_model, build_tokenizer
from rlvr_trainers.train import run


@pytest.fixture(scope="module")
def arith():
    return rlvr_envs.make("math-arith", level=2, prompt_format="answer_tag")


def _tiny(env):
    tasks = env.sample(200, seed=0)
    corpus = [prompt_for(env, t, conversational=False) + env.gold_completion(t) for t in tasks]
    tokenizer = build_tokenizer(corpus, vocab_size=300)
    return build_model(tokenizer, hidden_size=32, layers=1, heads=2), tokenizer


def _config(tmp_path, **changes):
    base = dict(
        envs=["math-arith-v0"],
        model="(in memory)",
        preset="dapo",
        conversational=False,
        num_generations=4,
        prompts_per_step=2,
        max_new_tokens=8,
        learning_rate=1e-3,
        max_steps=3,
        eval_size=4,
        eval_every=2,
        eval_k=2,
        output_dir=str(tmp_path / "run"),
        device="cpu",
    )
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

    summary = run(
        _config(tmp_path), model=model, tokenizer=tokenizer, envs=[arith], reward_funcs=[alternating], quiet=True
    )
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


def test_dynamic_sampling_drops_flat_groups_from_the_loss(tmp_path, arith):
    torch.manual_seed(1)
    model, tokenizer = _tiny(arith)
    before = _snapshot(model)

    def constant(prompts=None, completions=(), **_):
        return [1.0] * len(completions)

    summary = run(
        _config(tmp_path, max_steps=2, eval_size=0, plot=False),
        model=model,
        tokenizer=tokenizer,
        envs=[arith],
        reward_funcs=[constant],
        quiet=True,
    )
    records = [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]
    assert [r["frac_groups_dropped"] for r in records] == [1.0, 1.0]
    assert not _changed(before, model), "groups left out of the loss must not move the weights"


def test_env_reward_runs_inside_the_trainer(tmp_path, arith):
    from rlvr_envs.adapters.trl import reward_function

    torch.manual_seed(2)
    model, tokenizer = _tiny(arith)
    fn = reward_function(arith, l_max=8, l_cache=2)
    summary = run(
        _config(tmp_path, max_steps=2, eval_size=0, plot=False, refill_rounds=0),
        model=model,
        tokenizer=tokenizer,
        envs=[arith],
        reward_funcs=[fn],
        quiet=True,
    )
    records = [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]
    # 2 steps x 2 prompts x 4 rollouts (no refills), every one verified through the pool.
    assert sum(fn.reason_counts.values()) == 16
    assert set(fn.reason_counts) <= {"ok", "wrong", "no_answer", "format_error"}
    assert all(-1.0 <= r["reward_mean"] <= 1.0 for r in records)


def test_level_curriculum_moves_the_env_level_from_verdicts(tmp_path):
    from rlvr_envs.adapters.trl import reward_function

    env = rlvr_envs.make("math-arith", level=3, prompt_format="answer_tag")
    torch.manual_seed(3)
    model, tokenizer = _tiny(env)
    fn = reward_function(env)
    # An untrained model fails everything: each full window (one step of 2 x 4) is below the band.
    cfg = _config(tmp_path, eval_size=0, plot=False, curriculum={"target": [0.5, 0.9], "window": 8})
    summary = run(cfg, model=model, tokenizer=tokenizer, envs=[env], reward_funcs=[fn], quiet=True)
    records = [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]
    assert [r["level"] for r in records] == [2, 1, 1]
    assert env.level == 1


def test_curriculum_needs_a_leveled_procedural_env(tmp_path, arith):
    gsm_like = rlvr_envs.make("math-arith", level=1)
    model, tokenizer = _tiny(arith)
    with pytest.raises(ValueError, match="exactly one procedural env"):
        run(
            _config(tmp_path, curriculum={"target": [0.2, 0.8]}),
            model=model,
            tokenizer=tokenizer,
            envs=[arith, gsm_like.__class__(size=10, seed=1, level=1)],
            quiet=True,
        )


def test_dynamic_sampling_replaces_flat_groups_with_fresh_prompts(tmp_path, arith):
    # Rewards depend on the prompt only: a prompt whose first number is even gets a flat group
    # (all 1.0), an odd one a group with variance. Refills should replace the flat groups.
    torch.manual_seed(3)
    model, tokenizer = _tiny(arith)
    seen_batches: list[list[str]] = []

    def by_prompt(prompts=None, completions=(), **_):
        seen_batches.append(list(prompts))
        out = []
        for i, prompt in enumerate(prompts):
            first = int(prompt.split()[2])
            out.append(1.0 if first % 2 == 0 else float(i % 2))
        return out

    summary = run(
        _config(tmp_path, max_steps=3, eval_size=0, plot=False, refill_rounds=8, prompts_per_step=4),
        model=model,
        tokenizer=tokenizer,
        envs=[arith],
        reward_funcs=[by_prompt],
        quiet=True,
    )
    records = [json.loads(line) for line in open(summary["metrics_path"], encoding="utf-8")]
    # Every step started with some even prompts (about half) and ended with none left flat.
    assert len(seen_batches) > 3, "no refill round ran"
    assert all(r["frac_groups_dropped"] == 0.0 for r in records), records
    assert sum(r["frac_groups_refilled"] for r in records) > 0
    # Refill batches are whole groups of fresh prompts.
    for batch in seen_batches[1:]:
        assert len(batch) % 4 == 0 and all(batch[i] == batch[i - i % 4] for i in range(len(batch)))


def test_refill_merge_pads_and_copies_whole_groups():
    from rlvr_trainers.refill import can_refill, replace_groups

    pad = 0
    output = {
        "prompt_ids": torch.tensor([[5, 6], [5, 6], [7, 8], [7, 8]]),
        "prompt_mask": torch.ones(4, 2, dtype=torch.long),
        "completion_ids": torch.tensor([[1], [2], [3], [4]]),
        "completion_mask": torch.ones(4, 1, dtype=torch.long),
        "advantages": torch.tensor([0.0, 0.0, 1.0, -1.0]),
        "num_items_in_batch": torch.tensor(4),
    }
    fresh = {
        "prompt_ids": torch.tensor([[9, 9, 9], [9, 9, 9]]),
        "prompt_mask": torch.ones(2, 3, dtype=torch.long),
        "completion_ids": torch.tensor([[1, 2, 3], [4, 5, 6]]),
        "completion_mask": torch.ones(2, 3, dtype=torch.long),
        "advantages": torch.tensor([1.0, -1.0]),
        "num_items_in_batch": torch.tensor(6),
    }
    assert can_refill(output) and not can_refill({**output, "pixel_values": torch.zeros(1)})
    merged = replace_groups(output, fresh, [0], [0], group_size=2, pad_token_id=pad)
    # Prompts pad on the left, completions on the right; group 1 is untouched.
    assert merged["prompt_ids"].tolist() == [[9, 9, 9], [9, 9, 9], [pad, 7, 8], [pad, 7, 8]]
    assert merged["prompt_mask"].tolist() == [[1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 1, 1]]
    assert merged["completion_ids"].tolist() == [[1, 2, 3], [4, 5, 6], [3, pad, pad], [4, pad, pad]]
    assert merged["completion_mask"].tolist() == [[1, 1, 1], [1, 1, 1], [1, 0, 0], [1, 0, 0]]
    assert merged["advantages"].tolist() == [1.0, -1.0, 1.0, -1.0]
    assert output["advantages"].tolist() == [0.0, 0.0, 1.0, -1.0], "the input batch must not change"
    with pytest.raises(ValueError):
        replace_groups(output, fresh, [0, 1], [0], group_size=2, pad_token_id=pad)
