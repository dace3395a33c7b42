"""The demo: from one warm start, RL with the verifier's reward must help and a random reward
must not."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from rlvr_envs import Task
from rlvr_trainers.demo import ABSTENTION, DemoSettings, any_answer_reward, habit_pairs, random_reward, run_demo


def test_random_reward_ignores_the_completion():
    fn = random_reward(0)
    rewards = fn(prompts=["p"] * 400, completions=["right"] * 200 + ["wrong"] * 200)
    assert set(rewards) == {0.0, 1.0}
    # Same completion, different rewards: nothing about the text reaches the reward.
    assert 0.35 < sum(rewards[:200]) / 200 < 0.65 and 0.35 < sum(rewards[200:]) / 200 < 0.65


def test_any_answer_reward_pays_right_and_wrong_answers_alike_but_not_declining():
    import rlvr_envs
    from rlvr_envs.adapters.routing import task_to_json

    env = rlvr_envs.make("math-arith", level=2, prompt_format="answer_tag")
    task = env.sample(1, seed=0)[0]
    completions = [env.gold_completion(task), "<answer>-999</answer>", ABSTENTION, "", "<answer>"]
    fn = any_answer_reward(env)
    rewards = fn(completions=completions, task=[task_to_json(task)] * 5, env_id=[env.env_id] * 5)
    assert rewards == [1.0, 1.0, 0.0, 0.0, 0.0]


class _Format:
    @staticmethod
    def render_answer(answer: str) -> str:
        return f"<answer>{answer}</answer>"


class _Env:
    prompt_format = _Format()


@pytest.mark.parametrize("rate", [0.25, 0.5, 0.6, 0.75])
def test_habit_pairs_make_up_the_requested_share(rate):
    tasks = [Task(id=str(i), prompt=f"What is {i} + 3?", answer=str(i + 3)) for i in range(400)]
    gold = [(t.prompt, f"<answer>{t.answer}</answer>") for t in tasks]
    abstain = habit_pairs(_Env(), tasks, rate, "abstain", lambda t: t.prompt)
    assert {c for _, c in abstain} == {ABSTENTION}
    share = len(abstain) / (len(abstain) + len(gold))
    assert abs(share - rate) < 0.04, share
    copy = habit_pairs(_Env(), tasks, rate, "copy", lambda t: t.prompt)
    # The copied answer is the question's first number, never the sum (3 is never 0).
    assert all(c == f"<answer>{p.split()[2]}</answer>" for p, c in copy)


def test_habit_settings_are_checked():
    task = [Task(id="0", prompt="What is 1 + 2?", answer="3")]
    assert habit_pairs(_Env(), task, 0.0, "abstain", lambda t: t.prompt) == []
    with pytest.raises(SystemExit, match="below 1"):
        habit_pairs(_Env(), task, 1.0, "abstain", lambda t: t.prompt)
    with pytest.raises(SystemExit, match="habit must be one of"):
        habit_pairs(_Env(), task, 0.5, "ramble", lambda t: t.prompt)


def test_verifier_reward_helps_and_random_reward_does_not(tmp_path):
    # The demo's own warm start, then a shortened schedule for both runs: 40 RL steps, 64
    # held-out tasks x 4 samples. In the full demo pass@1 has gained about 35 points by step 40.
    settings = DemoSettings(
        out_dir=str(tmp_path),
        profile_pool=64,
        profile_samples=4,
        rl_steps=40,
        heldout=64,
        eval_k=4,
        eval_every=0,
        control=True,
        controls=("random",),  # the any-answer control is covered by its own test and by make demo
    )
    summary = run_demo(settings, quiet=True)
    control, real = summary["control"], summary
    assert real["before"]["n_tasks"] == 64
    # The warm start must leave room to improve, or neither assertion could fail.
    assert real["before"]["pass@1"] < 0.5 and control["before"]["pass@1"] < 0.5
    control_gain = control["after"]["pass@1"] - control["before"]["pass@1"]
    real_gain = real["after"]["pass@1"] - real["before"]["pass@1"]
    # A random reward's updates are noise: the answer-or-decline choice drifts a few points
    # either way (-9 to +7 over 120 steps in the README's seeds), never by the verifier's gain.
    assert control_gain <= 0.10, control
    assert real_gain >= 0.20, (real["before"], real["after"])
    assert real_gain >= control_gain + 0.15
