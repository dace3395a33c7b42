"""The demo's control: the same RL run with a reward that ignores the completion must not help."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from rlvr_trainers.demo import DemoSettings, random_reward, run_demo


def test_random_reward_ignores_the_completion():
    fn = random_reward(0)
    rewards = fn(prompts=["p"] * 400, completions=["right"] * 200 + ["wrong"] * 200)
    assert set(rewards) == {0.0, 1.0}
    # Same completion, different rewards: nothing about the text reaches the reward.
    assert 0.35 < sum(rewards[:200]) / 200 < 0.65 and 0.35 < sum(rewards[200:]) / 200 < 0.65


def test_control_run_with_a_random_reward_does_not_improve(tmp_path):
    # The demo's own warm start, then a shortened schedule: fewer RL steps, fewer held-out tasks.
    settings = DemoSettings(out_dir=str(tmp_path), profile_pool=64, profile_samples=4, rl_steps=40,
                            heldout=64, eval_k=4, control_only=True)
    summary = run_demo(settings, quiet=True)
    before, after = summary["control"]["before"], summary["control"]["after"]
    assert before["n_tasks"] == 64
    # The warm start must leave room to improve, or this test could not see an improvement.
    assert before["pass@1"] < 0.8
    # 64 tasks x 4 samples: allow sampling noise, but no gain of the size the real reward gives.
    assert after["pass@1"] <= before["pass@1"] + 0.06, (before, after)
