"""The `tools` demo: products a tiny model cannot do in its head, and a calculator that can."""

from __future__ import annotations

import random

import pytest

from rlvr_envs.episodes import EpisodeEnv
from rlvr_trainers.demo_tools import ProductEnv, ToolsDemoSettings, call_text, run_tools_demo


def test_products_have_the_asked_digits_and_right_answers():
    for digits in (1, 2, 3):
        for task in ProductEnv(digits=digits).sample(50, seed=digits):
            a, b = (int(x) for x in task.prompt.removeprefix("What is ").removesuffix("?").split(" * "))
            assert int(task.answer) == a * b
            low = 10 ** (digits - 1) if digits > 1 else 0
            assert low <= a < 10**digits and low <= b < 10**digits
    with pytest.raises(Exception, match="digits"):
        ProductEnv(digits=0)


def test_the_scripted_tool_call_gets_the_answer_from_the_calculator():
    env = ProductEnv(digits=2)
    with EpisodeEnv(env, tools=["calculator"], max_turns=3) as episodes:
        for task in env.sample(20, seed=random.Random(3).randrange(10**6)):
            episodes.reset(options={"task": task})
            _, _, terminated, _, info = episodes.step(call_text(task))
            assert not terminated and info["tool_messages"][0]["content"] == task.answer
            assert episodes.step(task.answer)[1] == 1.0


@pytest.mark.slow  # three short runs: about 40 s on an idle core
def test_the_demo_runs_end_to_end_with_both_controls_on_a_tiny_schedule(tmp_path):
    settings = ToolsDemoSettings(
        out_dir=str(tmp_path), sft_tasks=100, sft_steps=3, rl_steps=1, heldout=4, eval_every=1, rl_tasks=8
    )
    summary = run_tools_demo(settings)
    assert set(summary["runs"]) == {"verifier", "any_answer", "no_tools"}
    for run in summary["runs"].values():
        assert 0.0 <= run["after"]["pass@1"] <= 1.0 and 0.0 <= run["after"]["tool_use"] <= 1.0
        assert any(key.endswith("/tool_calls") for key in run["history"][0])
    assert (tmp_path / "comparison.png").stat().st_size > 0 and (tmp_path / "summary.json").exists()


def test_sft_in_length_buckets_takes_the_step_one_padded_batch_takes():
    """Splitting a batch by length only skips the padding: the weights after a few steps agree."""
    import copy

    import torch

    from rlvr_trainers.demo_tools import DEMO_CHAT_TEMPLATE, _scripted, sft_on_rollouts
    from rlvr_trainers.episode_rollout import ChatDeltas, rollout_episode
    from rlvr_trainers.tiny import EOS, build_model, build_tokenizer

    easy = ProductEnv(digits=1)
    tasks = easy.sample(60, seed=1)
    tokenizer = build_tokenizer([f"<|user|>{t.prompt}{EOS}<|assistant|>{call_text(t)}{EOS}" for t in tasks], 300)
    tokenizer.chat_template = DEMO_CHAT_TEMPLATE
    deltas = ChatDeltas(tokenizer)
    with EpisodeEnv(easy, tools=["calculator"], max_turns=3) as env:
        demos = [
            rollout_episode(
                env,
                _scripted(tokenizer, [call_text(t), t.answer] if i % 2 else [t.answer]),
                deltas,
                options={"task": t},
            )
            for i, t in enumerate(tasks)
        ]
    assert len({len(d.ids) for d in demos}) > 2  # lengths differ, so the buckets hold less padding
    one = build_model(tokenizer, hidden_size=32, layers=2, seed=0)
    split = copy.deepcopy(one)
    settings = {"steps": 3, "lr": 1e-3, "seed": 0, "pad_id": tokenizer.pad_token_id, "batch_size": 16}
    loss_one = sft_on_rollouts(one, demos, length_buckets=1, **settings)
    loss_split = sft_on_rollouts(split, demos, length_buckets=3, **settings)
    assert loss_one == pytest.approx(loss_split, rel=1e-5)
    for a, b in zip(one.parameters(), split.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    assert any(
        not torch.equal(a, b)
        for a, b in zip(one.parameters(), build_model(tokenizer, hidden_size=32, layers=2, seed=0).parameters())
    )


def test_the_demo_prompt_is_the_question_alone_and_a_bare_answer_scores():
    env = ProductEnv(digits=2)
    task = env.sample(1, seed=5)[0]
    with EpisodeEnv(env, tools=["calculator"], max_turns=3) as episodes:
        _, info = episodes.reset(options={"task": task})
        assert info["messages"][-1] == {"role": "user", "content": task.prompt}
        assert episodes.step(str(task.answer))[1] == 1.0
        episodes.reset(options={"task": task})
        assert episodes.step(str(int(task.answer) + 1))[1] == 0.0
